#!/usr/bin/env bash
# A real S3-compatible server on loopback for tests: s3s-fs (the s3s project's file-system-backed
# S3 server, a Rust crate), pinned by version and built with `cargo install --locked`.
#
# usage:
#   scripts/s3-server.sh install            build and install the pinned server (idempotent)
#   scripts/s3-server.sh start DIR PORT     serve DIR on 127.0.0.1:PORT; prints the endpoint URL
#   scripts/s3-server.sh bucket DIR NAME    create bucket NAME on the server serving DIR
#   scripts/s3-server.sh stop DIR           stop the server serving DIR
#
# Layout of DIR: data/ (one sub-directory per bucket), server.pid, server.log.
# Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY if set, else tpuc-test / tpuc-test-secret;
# requests are checked with AWS Signature V4 against them.
# Install location: ${TPUC_TOOLS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/tpuc/tools}/bin/s3s-fs
set -euo pipefail

server_crate=s3s-fs
server_version=0.14.1
ready_timeout_s=30

tools_dir="${TPUC_TOOLS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/tpuc/tools}"
server_bin="$tools_dir/bin/$server_crate"

say() { printf 's3-server: %s\n' "$*" >&2; }
die() { printf 's3-server: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

installed_version() {
    [[ -x "$server_bin" ]] && "$server_bin" --version 2>/dev/null | awk '{print $2}'
}

cmd_install() {
    [[ "$(installed_version || true)" == "$server_version" ]] && return 0
    command -v cargo >/dev/null || die "cargo not found; install Rust (rustup) first"
    mkdir -p "$tools_dir"
    # Concurrent installs (parallel test binaries) wait for the first one.
    exec 9>"$tools_dir/.install.lock"
    flock 9
    [[ "$(installed_version || true)" == "$server_version" ]] && return 0
    say "installing $server_crate $server_version into $tools_dir (a few minutes, once)"
    local start=$SECONDS
    # A build directory of its own: a caller's target directory may be locked by the cargo
    # that runs the tests calling this script.
    env -u CARGO_TARGET_DIR -u CARGO_BUILD_TARGET_DIR \
        cargo install "$server_crate" --version "=$server_version" --features binary --locked \
        --root "$tools_dir" --target-dir "$tools_dir/build" --quiet \
        || die "cargo install $server_crate $server_version failed"
    rm -rf "$tools_dir/build"
    say "installed in $((SECONDS - start)) s"
}

pid_of() {
    local pid_file="$1/server.pid"
    [[ -f "$pid_file" ]] && cat "$pid_file"
}

port_open() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

cmd_start() {
    local dir="$1" port="$2"
    [[ "$port" =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || die "invalid port '$port'"
    [[ "$(installed_version || true)" == "$server_version" ]] \
        || die "$server_crate $server_version is not installed; run: $0 install"
    mkdir -p "$dir/data"
    local old
    if old=$(pid_of "$dir") && kill -0 "$old" 2>/dev/null; then
        die "a server (pid $old) already serves $dir; stop it first: $0 stop $dir"
    fi
    port_open "$port" && die "port $port on 127.0.0.1 is already in use"

    setsid "$server_bin" --host 127.0.0.1 --port "$port" \
        --access-key "${AWS_ACCESS_KEY_ID:-tpuc-test}" \
        --secret-key "${AWS_SECRET_ACCESS_KEY:-tpuc-test-secret}" \
        "$dir/data" >"$dir/server.log" 2>&1 </dev/null &
    local pid=$!
    echo "$pid" >"$dir/server.pid"

    local deadline=$((SECONDS + ready_timeout_s))
    until port_open "$port"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            rm -f "$dir/server.pid"
            die "the server exited before listening; log:"$'\n'"$(tail -n 20 "$dir/server.log")"
        fi
        ((SECONDS < deadline)) || { kill -9 "$pid" 2>/dev/null; die "not listening after ${ready_timeout_s} s"; }
        sleep 0.05
    done
    echo "http://127.0.0.1:$port"
}

cmd_bucket() {
    local dir="$1" name="$2"
    [[ "$name" =~ ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ ]] || die "invalid bucket name '$name'"
    [[ -d "$dir/data" ]] || die "no server data directory at $dir/data; start a server first"
    mkdir -p "$dir/data/$name"
}

cmd_stop() {
    local dir="$1" pid
    pid=$(pid_of "$dir") || { say "no server recorded in $dir"; return 0; }
    if kill -TERM "$pid" 2>/dev/null; then
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/server.pid"
}

case "${1:-}" in
    install) [[ $# -eq 1 ]] || { usage; exit 2; }; cmd_install ;;
    start) [[ $# -eq 3 ]] || { usage; exit 2; }; cmd_start "$2" "$3" ;;
    bucket) [[ $# -eq 3 ]] || { usage; exit 2; }; cmd_bucket "$2" "$3" ;;
    stop) [[ $# -eq 2 ]] || { usage; exit 2; }; cmd_stop "$2" ;;
    -h | --help) usage ;;
    *) usage >&2; exit 2 ;;
esac
