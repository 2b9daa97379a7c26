#!/usr/bin/env bash
# Installs the PJRT plugins tpuc uses (XLA:CPU and libtpu) from PyPI wheels pinned
# by version and sha256 in scripts/plugins.lock.
#
# usage: scripts/setup-plugins.sh [--verify] [cpu] [tpu]
#   (no plugin names: both)
#
# Destination: ${TPUC_PLUGIN_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/tpuc/plugins}
#   cpu/pjrt_c_api_cpu_plugin.so, tpu/libtpu.so, manifest.tsv
#
# Already-installed plugins whose manifest entry matches the lock file are left alone
# and nothing is downloaded. --verify also re-hashes the installed libraries.
# Needs bash, python3 and pip (`python3 -m pip`).
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
lock_file="$script_dir/plugins.lock"
plugin_dir="${TPUC_PLUGIN_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/tpuc/plugins}"

say() { printf 'setup-plugins: %s\n' "$*"; }
die() { printf 'setup-plugins: error: %s\n' "$*" >&2; exit 1; }

verify=0
wanted=()
for arg in "$@"; do
    case "$arg" in
        --verify) verify=1 ;;
        cpu | tpu) wanted+=("$arg") ;;
        -h | --help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$arg' (expected --verify, cpu or tpu)" ;;
    esac
done
[[ ${#wanted[@]} -gt 0 ]] || wanted=(cpu tpu)

command -v python3 >/dev/null || die "python3 not found; install it (Debian/Ubuntu: apt-get install python3 python3-pip)"
[[ -f "$lock_file" ]] || die "lock file not found: $lock_file"
[[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]] \
    || die "the pinned wheels are for Linux x86_64; this machine is $(uname -s) $(uname -m)"

mkdir -p "$plugin_dir"
work_dir=$(mktemp -d "$plugin_dir/.setup.XXXXXX")
trap 'rm -rf -- "$work_dir"' EXIT

# All logic that reads the lock file and manifest lives in this one python3 helper:
#   plan <lock> <plugin_dir> <verify> <names...>  -> "<name> <state> <pin> <path>" lines (tabs)
#   reqs <lock> <names...>                        -> the requirement lines to download
#   install <lock> <plugin_dir> <wheel_dir> <work_dir> <name> -> extracts and records
helper() {
    python3 - "$@" <<'PY'
import hashlib, os, sys, zipfile

def read_lock(path):
    reqs, plugins = {}, {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("# tpuc-plugin:"):
            name, package, member, dest, so_sha = line.split(":", 1)[1].split()
            plugins[name] = dict(package=package, member=member, dest=dest, so_sha256=so_sha)
        elif line and not line.startswith("#"):
            spec, _, hashes = line.partition(" --hash=sha256:")
            package, _, version = spec.partition("==")
            reqs[package] = dict(line=line, version=version, wheel_sha256=hashes.split()[0])
    for p in plugins.values():
        p.update(reqs[p["package"]])
    return plugins

FIELDS = ("name", "package", "version", "wheel_sha256", "file", "so_sha256", "so_size")
PINNED = FIELDS[:-1]  # the fields that come from the lock file

def read_manifest(plugin_dir):
    path = os.path.join(plugin_dir, "manifest.tsv")
    entries = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            cols = line.rstrip("\n").split("\t")
            if len(cols) == len(FIELDS) and cols[0] != "name":
                entries[cols[0]] = dict(zip(FIELDS, cols))
    return entries

def write_manifest(plugin_dir, entries, work_dir):
    tmp = os.path.join(work_dir, "manifest.tsv")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\t".join(FIELDS) + "\n")
        for name in sorted(entries):
            f.write("\t".join(entries[name][k] for k in FIELDS) + "\n")
    os.replace(tmp, os.path.join(plugin_dir, "manifest.tsv"))

def sha256_file(fileobj):
    h = hashlib.sha256()
    while chunk := fileobj.read(1 << 22):
        h.update(chunk)
    return h.hexdigest()

def expected_entry(name, p):
    return dict(name=name, package=p["package"], version=p["version"],
                wheel_sha256=p["wheel_sha256"], file=p["dest"], so_sha256=p["so_sha256"])

cmd, lock = sys.argv[1], read_lock(sys.argv[2])
if cmd == "plan":
    plugin_dir, verify, names = sys.argv[3], sys.argv[4] == "1", sys.argv[5:]
    manifest = read_manifest(plugin_dir)
    for name in names:
        p = lock[name]
        path = os.path.join(plugin_dir, p["dest"])
        entry = manifest.get(name)
        if entry is None:
            state = "missing"
        elif {k: entry[k] for k in PINNED} != expected_entry(name, p):
            state = "outdated"
        elif not os.path.isfile(path):
            state = "missing"
        elif os.path.getsize(path) != int(entry["so_size"]):
            state = "corrupt"
        elif verify:
            with open(path, "rb") as f:
                state = "ok" if sha256_file(f) == p["so_sha256"] else "corrupt"
        else:
            state = "ok"
        print(f"{name}\t{state}\t{p['package']}=={p['version']}\t{path}")
elif cmd == "reqs":
    for name in sys.argv[3:]:
        print(lock[name]["line"])
elif cmd == "install":
    plugin_dir, wheel_dir, work_dir, name = sys.argv[3:7]
    p = lock[name]
    wheel_prefix = p["package"].replace("-", "_") + "-" + p["version"] + "-"
    wheels = [w for w in os.listdir(wheel_dir) if w.startswith(wheel_prefix) and w.endswith(".whl")]
    if len(wheels) != 1:
        sys.exit(f"expected one wheel {wheel_prefix}*.whl in the download directory, found {wheels}")
    wheel = os.path.join(wheel_dir, wheels[0])
    with open(wheel, "rb") as f:
        if sha256_file(f) != p["wheel_sha256"]:
            sys.exit(f"{wheels[0]}: sha256 does not match the lock file")
    dest = os.path.join(plugin_dir, p["dest"])
    staged = os.path.join(work_dir, name + ".so")
    with zipfile.ZipFile(wheel) as z:
        with z.open(p["member"]) as src, open(staged, "wb") as out:
            while chunk := src.read(1 << 22):
                out.write(chunk)
        # Keep the licence and notices next to the library they cover.
        dest_dir = os.path.dirname(dest)
        os.makedirs(dest_dir, exist_ok=True)
        for info in z.infolist():
            base = os.path.basename(info.filename)
            if base in ("LICENSE", "THIRD_PARTY_NOTICES", "THIRD_PARTY_NOTICES.txt"):
                notice = os.path.join(work_dir, name + "." + base)
                with z.open(info) as src, open(notice, "wb") as out:
                    out.write(src.read())
                os.replace(notice, os.path.join(dest_dir, base))
    with open(staged, "rb") as f:
        if sha256_file(f) != p["so_sha256"]:
            sys.exit(f"{p['member']} in {wheels[0]}: sha256 does not match the lock file")
    os.chmod(staged, 0o755)
    os.replace(staged, dest)
    manifest = read_manifest(plugin_dir)
    manifest[name] = dict(expected_entry(name, p), so_size=str(os.path.getsize(dest)))
    write_manifest(plugin_dir, manifest, work_dir)
PY
}

plan=$(helper plan "$lock_file" "$plugin_dir" "$verify" "${wanted[@]}") \
    || die "cannot read $lock_file or the manifest in $plugin_dir"
to_install=()
while IFS=$'\t' read -r name state spec path; do
    case "$state" in
        ok) say "$name: $spec already installed ($path)" ;;
        *) say "$name: $spec $state, installing"; to_install+=("$name") ;;
    esac
done <<< "$plan"

if [[ ${#to_install[@]} -eq 0 ]]; then
    say "plugin directory: $plugin_dir"
    exit 0
fi

python3 -m pip --version >/dev/null 2>&1 \
    || die "pip not found for python3; install it (Debian/Ubuntu: apt-get install python3-pip)"

# Ask for exactly the pinned wheels (Linux x86_64, CPython 3.11 tags) whatever the local
# Python is, so the hashes in the lock file always name the file pip picks.
helper reqs "$lock_file" "${to_install[@]}" > "$work_dir/requirements.txt"
say "downloading ${to_install[*]} (pip checks the pinned sha256)"
python3 -m pip download --quiet --no-deps --only-binary=:all: --require-hashes \
    --python-version 3.11 --implementation cp --abi cp311 --abi none \
    --platform manylinux_2_31_x86_64 --platform manylinux_2_27_x86_64 \
    --dest "$work_dir/wheels" -r "$work_dir/requirements.txt" \
    || die "pip download failed (network, or a wheel whose sha256 differs from $lock_file)"

for name in "${to_install[@]}"; do
    helper install "$lock_file" "$plugin_dir" "$work_dir/wheels" "$work_dir" "$name" \
        || die "installing $name failed"
    say "$name: installed"
done
say "plugin directory: $plugin_dir"
