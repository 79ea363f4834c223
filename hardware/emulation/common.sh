# Shared settings for the emulated-hardware harness. Sourced, not executed.
# Cache: ~/.cache/edgemotion-vm (override with EDGEMOTION_VM_CACHE); kernel artefacts keyed by version.
set -euo pipefail
EMU_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$EMU_DIR/../.." && pwd)"
VM_CACHE="${EDGEMOTION_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgemotion-vm}"
VM_SUITE="${EDGEMOTION_VM_SUITE:-bookworm-backports}"
mkdir -p "$VM_CACHE"

log() { printf '[vm %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf '[vm] error: %s\n' "$*" >&2; exit 2; }

# Seconds since an epoch-nanosecond mark, with millisecond precision.
elapsed() { local now; now=$(date +%s%N); echo "$(( (now - $1) / 1000000000 )).$(printf '%03d' $(( (now - $1) / 1000000 % 1000 )))"; }
