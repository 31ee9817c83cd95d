#!/usr/bin/env bash
# The set-up step for system packages: installs what tools/system-packages.txt lists and is
# missing, with apt-get as root. `make setup` runs it; `make demo` and `make test` run
# `make setup` first. Without root or apt-get it names what to install and stops with exit 1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
missing=()
while read -r package; do
    [[ -z "$package" || "$package" == \#* ]] && continue
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done < tools/system-packages.txt
if ((${#missing[@]} == 0)); then
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    echo "setup: missing system packages: ${missing[*]} (Debian names); install them" >&2
    exit 1
fi
if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing system packages: ${missing[*]}; run as root:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${missing[@]}"
}
