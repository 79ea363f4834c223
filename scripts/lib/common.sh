# Shared helpers for the scripts in scripts/. Source it; do not run it.

# Packages every build needs (C libraries through SwiftPM system-library targets) and the
# broker the demo and the tests run against.
EDGEMOTION_PACKAGES=(
  pkg-config
  libmosquitto-dev libiio-dev libgpiod-dev libyaml-dev libsqlite3-dev zlib1g-dev
  mosquitto mosquitto-clients
  libmicrohttpd-dev
)

# What only the test suite needs besides: a real terminal for the demo's Ctrl-C test (tmux),
# promtool and a real Prometheus server for /metrics (prometheus), headless Chromium for the
# dashboard's browser test and its screenshot (chromium).
EDGEMOTION_TEST_PACKAGES=(
  tmux prometheus chromium
)

# ensure_packages PKG...: installs the Debian packages that are missing, and nothing else.
# Idempotent: when everything is present it touches neither the network nor dpkg.
ensure_packages() {
  local missing=()
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "installing: ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ensure_swift: fails with a clear message when the Swift toolchain is missing.
ensure_swift() {
  if ! command -v swift >/dev/null 2>&1; then
    for d in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
      if [ -x "$d/swift" ]; then export PATH="$d:$PATH"; return 0; fi
    done
    echo "error: the Swift toolchain (6.x) is not on PATH; install it from swift.org and retry" >&2
    exit 1
  fi
}

# swift_build_with_progress ARGS...: `swift build ARGS` with one updating line
# ("== building: 45% (290/645), 38 s") on a terminal and nothing while it runs otherwise;
# the full log goes to a file, and on failure its errors and the log's path are printed.
swift_build_with_progress() {
  local log start rc line pct
  log=$(mktemp /tmp/edgemotion-build.XXXXXX.log)
  start=$SECONDS
  if [ -t 2 ]; then
    { swift build "$@" 2>&1 && echo "swift-build-exit=0" || echo "swift-build-exit=$?"; } | tee "$log" |
      while IFS= read -r line; do
        if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
          pct=$(( 100 * BASH_REMATCH[1] / BASH_REMATCH[2] ))
          printf '\r\033[K== building: %d%% (%d/%d steps), %d s' "$pct" "${BASH_REMATCH[1]}" \
            "${BASH_REMATCH[2]}" $(( SECONDS - start )) >&2
        fi
      done
    printf '\r\033[K' >&2
  else
    { swift build "$@" 2>&1 && echo "swift-build-exit=0" || echo "swift-build-exit=$?"; } >"$log"
  fi
  rc=$(sed -n 's/^swift-build-exit=//p' "$log" | tail -n 1)
  if [ "${rc:-1}" != 0 ]; then
    echo "error: swift build $* failed (exit ${rc:-?}); its errors:" >&2
    grep -E 'error:' "$log" | head -n 20 >&2 || tail -n 20 "$log" >&2
    echo "full log: $log" >&2
    return 1
  fi
  echo "== built in $(( SECONDS - start )) s ($(grep -v '^swift-build-exit=' "$log" | tail -n 1))"
  rm -f "$log"
}

# free_port: prints a TCP port on 127.0.0.1 that nothing listens on.
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$(( 20000 + RANDOM % 30000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  echo "error: no free port found on 127.0.0.1" >&2
  return 1
}

# wait_for_port PORT SECONDS: waits until something accepts on 127.0.0.1:PORT.
wait_for_port() {
  local port=$1 deadline=$(( SECONDS + $2 ))
  while [ $SECONDS -lt $deadline ]; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}
