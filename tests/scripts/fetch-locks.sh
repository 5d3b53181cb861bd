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
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$t/roots/sid" "$t/kernels"
touch "$t/roots/sid/.pioc-ready"
export PIOC_ROOTS=$t/roots PIOC_KERNEL_CACHE=$t/kernels

# blocked LOCKFILE CMD...: CMD must not finish while LOCKFILE is held, and
# must finish (status recorded in $t/rc) within 5 s of its release.
blocked() {
	local lockfile=$1; shift
	flock "$lockfile" sleep 2 &
	local holder=$!
	sleep 0.3
	( "$@" >"$t/out" 2>&1; echo $? >"$t/rc" ) &
	local waiter=$!
	sleep 1
	[ ! -e "$t/rc" ] || fail "'$*' finished while $lockfile was held: $(cat "$t/out")"
	wait "$holder"
	local i
	for i in $(seq 50); do [ -e "$t/rc" ] && break; sleep 0.1; done
	[ -e "$t/rc" ] || fail "'$*' still waiting 5 s after $lockfile was released"
	wait "$waiter"
	echo "ok: '$*' waited for $lockfile ($(cat "$t/out" | head -1))"
}

rm -f "$t/rc"
blocked "$t/roots/.sid.lock" "$top/scripts/debian-root" path sid
[ "$(cat "$t/rc")" = 0 ] && [ "$(cat "$t/out")" = "$t/roots/sid" ] ||
	fail "debian-root path sid: exit $(cat "$t/rc"), printed '$(cat "$t/out")'"

# The other root's lock does not hold this one up.
flock "$t/roots/.trixie.lock" sleep 3 &
timeout 2 "$top/scripts/debian-root" path sid >/dev/null || fail "debian-root path sid waited for trixie's lock"

rm -f "$t/rc"
blocked "$t/kernels/.lock" "$top/scripts/kernel-headers" 6.1 no-such-arch
[ "$(cat "$t/rc")" != 0 ] && grep -q "unknown arch" "$t/out" ||
	fail "kernel-headers 6.1 no-such-arch: exit $(cat "$t/rc"), printed '$(cat "$t/out")'"
echo "fetch-locks.sh: ok"
