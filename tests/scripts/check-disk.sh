#!/usr/bin/env bash
# scripts/check-disk against file systems of known size: tmpfs mounts in a
# private mount namespace (root only; skipped, exit 77, elsewhere).
#  - a 64 MB checkout: refused, naming the mount, its free MB and a tree;
#  - the roots on a second, large mount: counted there, not on the checkout's;
#  - a 20 GB checkout (a tmpfs size is a limit, not an allocation): passes;
#  - a tree that already holds data needs only the rest of its share.
set -uo pipefail
script=${1:?usage: check-disk.sh SCRIPT}
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	echo "check-disk.sh: needs root and mount namespaces; skipped"; exit 77
fi
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
unshare -m bash -euo pipefail -c '
script=$1 base=$2
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$base/small" "$base/big" "$base/roots"
mount -t tmpfs -o size=64m tmpfs "$base/small"
mount -t tmpfs -o size=20g tmpfs "$base/big"
mount -t tmpfs -o size=20g tmpfs "$base/roots"

if out=$(PIOC_ROOTS="$base/roots" "$script" --top "$base/small" 2>&1); then
	fail "a 64 MB checkout passed: $out"
fi
echo "$out"
grep -q "$base/small has [0-9]* MB free" <<<"$out" || fail "the refusal does not name the mount and its free space"
grep -q "build-asan 2[0-9]* MB" <<<"$out" || fail "the refusal does not name the ASan tree"
grep -q "$base/roots: about [0-9]* MB needed" <<<"$out" || fail "the roots were not counted on their own mount"
grep -q "small has .*bullseye" <<<"$out" && fail "the roots were counted on the checkout"

out=$(PIOC_ROOTS="$base/roots" "$script" --top "$base/big") || fail "a 20 GB checkout was refused: $out"
echo "$out"
fresh=$(sed -n "s|^check-disk: $base/big: about \([0-9]*\) MB needed.*|\1|p" <<<"$out")
[ -n "$fresh" ] || fail "no need line for $base/big"

mkdir -p "$base/big/build-asan"
head -c 300M /dev/zero >"$base/big/build-asan/blob"
out=$(PIOC_ROOTS="$base/roots" "$script" --top "$base/big")
later=$(sed -n "s|^check-disk: $base/big: about \([0-9]*\) MB needed.*|\1|p" <<<"$out")
[ "$later" -eq $((fresh - 300)) ] || fail "300 MB in build-asan: need $later MB, expected $((fresh - 300))"

out=$(PIOC_DISK_CHECK=0 "$script" --top "$base/small") || fail "PIOC_DISK_CHECK=0 did not skip"
echo "ok"
' check-disk "$(cd "$(dirname "$script")" && pwd)/$(basename "$script")" "$base"
