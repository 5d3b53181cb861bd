#!/usr/bin/env bash
# scripts/run-tests prefetches the Debian roots and kernel trees in the
# background while stages may ask for the same ones: scripts/debian-root
# (ensure, path) and scripts/kernel-headers must wait while another holds
# their lock, and go on once it is free. Without the locks the blocked calls
# below return at once and this fails. Needs root (debian-root refuses
# otherwise; skipped, exit 77). Nothing is downloaded: the root is a ready
# stand-in and kernel-headers is given an unknown architecture, which it
# refuses (once it has the lock) before it refreshes any package list.
set -uo pipefail
top=${1:?usage: fetch-locks.sh TOP}
[ "$(id -u)" = 0 ] || { echo "fetch-locks.sh: needs root; skipped"; exit 77; }
command -v flock >/dev/null || { echo "FAIL: flock (util-linux) missing"; exit 1; }
t=$(mktemp -d)
trap 'touch "$t"/release-.sid.lock "$t"/release-.trixie.lock "$t"/release-.lock 2>/dev/null; kill $(jobs -p) 2>/dev/null; rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$t/roots/sid" "$t/kernels"
touch "$t/roots/sid/.pioc-ready"
export PIOC_ROOTS=$t/roots PIOC_KERNEL_CACHE=$t/kernels

# hold LOCKFILE: holds it in the background until "$t/release-LOCKFILE's
# name" exists, and returns once it is held (not after a guessed sleep: on
# a machine busy with the prefetch's unpacking a process may take a while
# to start).
hold() {
	local lockfile=$1 release=$t/release-${1##*/}
	rm -f "$release"
	flock "$lockfile" sh -c "until [ -e '$release' ]; do sleep 0.05; done" &
	local i
	for i in $(seq 400); do
		flock -n "$lockfile" true || return 0
		sleep 0.05
	done
	fail "could not see $lockfile held within 20 s"
}
release() { touch "$t/release-${1##*/}"; }

# blocked LOCKFILE CMD...: CMD must not finish while LOCKFILE is held, and
# must finish (status recorded in $t/rc) within 20 s of its release.
blocked() {
	local lockfile=$1; shift
	hold "$lockfile"
	( "$@" >"$t/out" 2>&1; echo $? >"$t/rc" ) &
	local waiter=$!
	sleep 1
	[ ! -e "$t/rc" ] || fail "'$*' finished while $lockfile was held: $(cat "$t/out")"
	release "$lockfile"
	local i
	for i in $(seq 200); do [ -e "$t/rc" ] && break; sleep 0.1; done
	[ -e "$t/rc" ] || fail "'$*' still waiting 20 s after $lockfile was released"
	wait "$waiter"
	echo "ok: '$*' waited for $lockfile ($(cat "$t/out" | head -1))"
}

rm -f "$t/rc"
blocked "$t/roots/.sid.lock" "$top/scripts/debian-root" path sid
[ "$(cat "$t/rc")" = 0 ] && [ "$(cat "$t/out")" = "$t/roots/sid" ] ||
	fail "debian-root path sid: exit $(cat "$t/rc"), printed '$(cat "$t/out")'"

# The other root's lock does not hold this one up (held until released:
# the call must end while it is).
hold "$t/roots/.trixie.lock"
timeout 20 "$top/scripts/debian-root" path sid >/dev/null || fail "debian-root path sid waited for trixie's lock"
release "$t/roots/.trixie.lock"

rm -f "$t/rc"
blocked "$t/kernels/.lock" "$top/scripts/kernel-headers" 6.1 no-such-arch
[ "$(cat "$t/rc")" != 0 ] && grep -q "unknown arch" "$t/out" ||
	fail "kernel-headers 6.1 no-such-arch: exit $(cat "$t/rc"), printed '$(cat "$t/out")'"
echo "fetch-locks.sh: ok"
