#!/usr/bin/env bash
# Build the reference engines hexjax is measured against, outside the project tree:
#
#   mohex         MoHex 2.0, Hex over GTP (benzene-vanilla-cmake)
#   pbrain-rapfi  Rapfi, Gomoku/renju over the Gomocup protocol, classical evaluation
#   edax          Edax, Othello 8x8 over GTP (edax -gtp); needs its weights data/eval.dat
#   gtp-rhino     GRhino, Othello 8x8 over GTP, Debian's build (weaker than Edax, but its data
#                 comes from the package archive)
#
# Usage: experiments/engines/build_engines.sh [options]
#   --prefix DIR            install here (default: $HEXJAX_ENGINES or ~/.local/share/hexjax-engines)
#   --only mohex|rapfi|edax|grhino   build one engine
#   --force                 rebuild even if the engine is already built at its pinned commit
#   --jobs N                parallel compiles (default: one per CPU; for MoHex also one per 8 GB free)
#   --mohex-src DIR|URL     git repository (bare or not) or plain source tree to build MoHex from
#   --rapfi-src DIR|URL     the same for Rapfi
#   --rapfi-networks-src DIR|URL   the same for rapfi-networks (holds Rapfi's classical weights)
#   --rapfi-arch auto|native|avx512|avx2|sse|generic   Rapfi's instruction set (default auto)
#   --edax-src DIR|URL      the same for Edax (edax-reversi)
#   --edax-eval FILE|URL    Edax's weights: eval.dat, or the eval.7z archive holding data/eval.dat
#                           (default: the eval.7z of Edax's GitHub release v4.4)
#   --edax-arch auto|native|x86-64-v4|x86-64-v3|x86-64-v2|x86-64   Edax's -march (default auto)
#   --no-apt                do not install Debian packages
# The same settings as environment variables: HEXJAX_ENGINES, MOHEX_SRC, RAPFI_SRC,
# RAPFI_NETWORKS_SRC, RAPFI_ARCH, EDAX_SRC, EDAX_EVAL, EDAX_ARCH, JOBS.
#
# Layout of the prefix: bin/ (what to run), libexec/<engine>/ (the binaries and the data files
# they read), src/ and build/ (kept so that a rebuild is quick; safe to delete afterwards).
set -euo pipefail

# Pinned commits. The newest benzene-vanilla-cmake commits segfault or play random moves in won
# positions (upstream issues 10 and 14); f888938 is the last one reported sound.
MOHEX_COMMIT=f888938bc7ab051a04034a9e19a31399a31d2429
RAPFI_COMMIT=3aedf3a2ab0ab710a9f3d00e57d5287ceb864894
# Rapfi's newest classical (non-NNUE) weights, from the Networks submodule at the commit that
# RAPFI_COMMIT records; the hash guards whichever source they come from.
RAPFI_MODEL=model220723.bin
RAPFI_MODEL_SHA256=834889c21f4ca859d30acdc6864f30fa73c5326714ea7e9bfb44075a7099ce33
# Edax 4.6 plus upstream's fixes of 2025-03-10 (master; the aligned_alloc size of the hash table,
# endgame move ordering, book tools). Its weights are not in git: only Edax's GitHub releases
# carry them, as eval.7z (v4.4's file, which 4.6 reads). EDAX_EVAL_BYTES is what Edax reads of it
# (a 28-byte header, then 61 plies x 114364 int16 weights); no SHA-256 is pinned because the file
# could not be had where this script was written.
EDAX_COMMIT=14f048c05ddfa385b6bf954a9c2905bbe677e9d3
EDAX_EVAL_BYTES=13952436
# GRhino 0.16.1 as Debian bookworm builds it: the binary from the package grhino (whose other
# dependencies are a GUI's, so it is unpacked, not installed), its book from grhino-data.
GRHINO_VERSION=0.16.1-4

PREFIX=${HEXJAX_ENGINES:-$HOME/.local/share/hexjax-engines}
MOHEX_SRC=${MOHEX_SRC:-https://github.com/cgao3/benzene-vanilla-cmake.git}
RAPFI_SRC=${RAPFI_SRC:-https://github.com/dhbloo/rapfi.git}
RAPFI_NETWORKS_SRC=${RAPFI_NETWORKS_SRC:-https://github.com/dhbloo/rapfi-networks.git}
RAPFI_ARCH=${RAPFI_ARCH:-auto}
EDAX_SRC=${EDAX_SRC:-https://github.com/abulmo/edax-reversi.git}
EDAX_EVAL=${EDAX_EVAL:-https://github.com/abulmo/edax-reversi/releases/download/v4.4/eval.7z}
EDAX_ARCH=${EDAX_ARCH:-auto}
JOBS=${JOBS:-}
ONLY=""
FORCE=0
APT=1

say() { printf '==> %s\n' "$*"; }
die() { printf 'build_engines: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

while [[ $# -gt 0 ]]; do
    case $1 in
        --prefix) PREFIX=${2:?--prefix needs a directory}; shift ;;
        --only) ONLY=${2:?--only needs mohex, rapfi, edax or grhino}; shift ;;
        --force) FORCE=1 ;;
        --jobs) JOBS=${2:?--jobs needs a number}; shift ;;
        --mohex-src) MOHEX_SRC=${2:?--mohex-src needs a directory or URL}; shift ;;
        --rapfi-src) RAPFI_SRC=${2:?--rapfi-src needs a directory or URL}; shift ;;
        --rapfi-networks-src) RAPFI_NETWORKS_SRC=${2:?--rapfi-networks-src needs a directory or URL}; shift ;;
        --rapfi-arch) RAPFI_ARCH=${2:?--rapfi-arch needs a value}; shift ;;
        --edax-src) EDAX_SRC=${2:?--edax-src needs a directory or URL}; shift ;;
        --edax-eval) EDAX_EVAL=${2:?--edax-eval needs a file or URL}; shift ;;
        --edax-arch) EDAX_ARCH=${2:?--edax-arch needs a value}; shift ;;
        --no-apt) APT=0 ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
    shift
done
case $ONLY in "" | mohex | rapfi | edax | grhino) ;; *) die "--only takes mohex, rapfi, edax or grhino, not '$ONLY'" ;; esac
case $RAPFI_ARCH in auto | native | avx512 | avx2 | sse | generic) ;; *) die "unknown --rapfi-arch '$RAPFI_ARCH'" ;; esac
case $EDAX_ARCH in auto | native | x86-64-v4 | x86-64-v3 | x86-64-v2 | x86-64) ;; *) die "unknown --edax-arch '$EDAX_ARCH'" ;; esac
[[ -z $JOBS || $JOBS =~ ^[1-9][0-9]*$ ]] || die "--jobs takes a positive number, not '$JOBS'"
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
wanted() { [[ -z $ONLY || $ONLY == "$1" ]]; }

# Builds run niced so that the machine stays usable meanwhile.
NICE=(nice -n 10)

# One benzene file needs about 7 GB of memory to compile, so MoHex gets one job per 8 GB
# available; Rapfi's files are small.
ncpu=$(nproc)
mem_gb=$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo)
if [[ -n $JOBS ]]; then
    MOHEX_JOBS=$JOBS RAPFI_JOBS=$JOBS EDAX_JOBS=$JOBS
else
    MOHEX_JOBS=$((mem_gb / 8 < ncpu ? mem_gb / 8 : ncpu))
    ((MOHEX_JOBS >= 1)) || MOHEX_JOBS=1
    RAPFI_JOBS=$ncpu EDAX_JOBS=$ncpu
fi

# --- Debian packages -------------------------------------------------------------------------

install_packages() {
    local pkgs=(build-essential cmake git ca-certificates)
    if wanted mohex; then
        pkgs+=(libboost-thread-dev libboost-system-dev libboost-filesystem-dev
            libboost-program-options-dev libboost-date-time-dev libdb-dev)
    fi
    # 7z unpacks Edax's weights (eval.7z), curl downloads them.
    if wanted edax; then pkgs+=(p7zip-full curl); fi
    # GRhino's opening book and patterns, read from /usr/share/grhino.
    if wanted grhino; then pkgs+=(grhino-data); fi
    local missing=() p
    for p in "${pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        say "Debian packages already installed: ${pkgs[*]}"
        return
    fi
    local sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    say "installing Debian packages: ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends "${missing[@]}"
}

if ((APT)); then
    if command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
        install_packages
    else
        say "no apt-get here: install a C++17 compiler, cmake >= 3.18, git, Boost (thread system" \
            "filesystem program_options date_time) and Berkeley DB (db.h) yourself; for Edax, gcc," \
            "curl and 7z"
    fi
fi
command -v git >/dev/null && command -v make >/dev/null || die "git and make are needed"
if wanted mohex || wanted rapfi; then command -v cmake >/dev/null || die "cmake is needed"; fi

# --- Sources -----------------------------------------------------------------------------------

# A git repository itself (work tree or bare), not a folder somewhere inside one.
is_git_repo() { [[ -e $1/.git || (-f $1/HEAD && -d $1/objects) ]]; }

# checkout SRC COMMIT DEST: DEST becomes SRC's tree at COMMIT. SRC may be a URL, a git
# repository (bare or not: fetched by commit, shallow where the server allows) or a plain source
# tree (copied, its commit unverifiable).
checkout() {
    local src=$1 commit=$2 dest=$3
    if [[ -d $dest/.git && $(git -C "$dest" rev-parse HEAD 2>/dev/null) == "$commit" ]]; then
        return
    fi
    rm -rf "$dest"
    if [[ -d $src ]] && ! is_git_repo "$src"; then
        say "copying $src (not a git repository: cannot check that it is commit ${commit:0:7})"
        cp -a "$src" "$dest"
        return
    fi
    say "fetching ${commit:0:7} from $src"
    git init -q "$dest"
    git -C "$dest" fetch -q --depth 1 "$src" "$commit" 2>/dev/null ||
        git -C "$dest" fetch -q "$src" ||
        die "cannot fetch from $src"
    git -C "$dest" -c advice.detachedHead=false checkout -q "$commit" ||
        die "$src has no commit $commit"
}

# Fetches one file of rapfi-networks at COMMIT without its large NNUE weights.
networks_file() {
    local src=$1 commit=$2 path=$3 out=$4
    if [[ -d $src ]] && is_git_repo "$src"; then
        git -C "$src" show "$commit:$path" >"$out"
    elif [[ -d $src ]]; then
        cp "$src/$path" "$out"
    else
        local tmp
        tmp=$(mktemp -d)
        git init -q "$tmp"
        git -C "$tmp" remote add origin "$src"
        # A blob-less fetch: the one file needed comes on demand from the remote.
        git -C "$tmp" fetch -q --depth 1 --filter=blob:none origin "$commit" &&
            git -C "$tmp" show "$commit:$path" >"$out" ||
            die "cannot fetch $path at $commit from $src"
        rm -rf "$tmp"
    fi
    [[ $(sha256sum "$out" | cut -d' ' -f1) == "$RAPFI_MODEL_SHA256" ]] ||
        die "$path from $src is not the pinned file (sha256 mismatch)"
}

# run_logged LOG CMD...: runs CMD niced, its output kept in LOG (and its tail shown if it fails).
run_logged() {
    local log=$1
    shift
    if ! "${NICE[@]}" "$@" >>"$log" 2>&1; then
        tail -n 40 "$log" >&2
        die "failed: $* (full log: $log)"
    fi
}

elapsed() { local s=$((SECONDS - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# --- MoHex -------------------------------------------------------------------------------------

build_mohex() {
    local dest=$PREFIX/libexec/mohex src=$PREFIX/src/benzene-vanilla-cmake
    local build=$PREFIX/build/mohex log=$PREFIX/build/mohex.log
    if ((!FORCE)) && [[ -x $dest/mohex && $(cat "$dest/COMMIT" 2>/dev/null) == "$MOHEX_COMMIT" ]]; then
        say "MoHex already built at ${MOHEX_COMMIT:0:7} ($dest); --force rebuilds it"
        return
    fi
    local t0=$SECONDS
    checkout "$MOHEX_SRC" "$MOHEX_COMMIT" "$src"
    rm -rf "$build" && mkdir -p "$build" && : >"$log"
    say "building MoHex with $MOHEX_JOBS job(s); log in $log (takes a while: one file alone" \
        "needs ~7 GB and several minutes)"
    run_logged "$log" cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release
    # Only the mohex target: wolve and the test programs are not needed.
    run_logged "$log" make -C "$build" -j "$MOHEX_JOBS" mohex
    # MoHex finds its pattern files beside its binary (it also looks in the source tree,
    # but that may be deleted), so the two are installed together and bin/mohex execs it.
    local stage=$dest.new
    rm -rf "$stage" && mkdir -p "$stage" "$PREFIX/bin"
    install -m 755 "$build/src/mohex/mohex" "$stage/mohex"
    find "$src/share" -maxdepth 1 -name '*.txt' -exec install -m 644 {} "$stage/" \;
    echo "$MOHEX_COMMIT" >"$stage/COMMIT"
    rm -rf "$dest" && mv "$stage" "$dest"
    cat >"$PREFIX/bin/mohex" <<'EOF'
#!/bin/sh
# MoHex must be started by its real path: it reads its pattern files from beside it.
exec "$(dirname "$(readlink -f "$0")")/../libexec/mohex/mohex" "$@"
EOF
    chmod 755 "$PREFIX/bin/mohex"
    say "MoHex built in $(elapsed "$t0"): $PREFIX/bin/mohex"
}

# --- Rapfi -------------------------------------------------------------------------------------

rapfi_arch_flags() {
    local arch=$RAPFI_ARCH flags
    flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
    if [[ $arch == auto ]]; then
        # AVX2 like upstream's x64-*-AVX2 release preset: runs on nearly every x86-64 machine
        # of the last decade, unlike a -march=native (AVX-512) build.
        if [[ $(uname -m) != x86_64 ]]; then arch=native
        elif [[ $flags == *" avx2"* ]]; then arch=avx2
        elif [[ $flags == *" sse4_1"* ]]; then arch=sse
        else arch=generic
        fi
    fi
    local off=(-DUSE_SSE=OFF -DUSE_AVX2=OFF -DUSE_AVX512=OFF -DUSE_BMI2=OFF -DUSE_VNNI=OFF)
    case $arch in
        native) echo "" ;;  # Rapfi's CMake detects what the compiler host supports
        avx512) echo "${off[*]} -DUSE_SSE=ON -DUSE_AVX2=ON -DUSE_AVX512=ON" ;;
        avx2) echo "${off[*]} -DUSE_SSE=ON -DUSE_AVX2=ON" ;;
        sse) echo "${off[*]} -DUSE_SSE=ON" ;;
        generic) echo "${off[*]}" ;;
    esac
    say "Rapfi instruction set: $arch" >&2
}

build_rapfi() {
    local dest=$PREFIX/libexec/rapfi src=$PREFIX/src/rapfi
    local build=$PREFIX/build/rapfi log=$PREFIX/build/rapfi.log
    if ((!FORCE)) && [[ -x $dest/pbrain-rapfi && $(cat "$dest/COMMIT" 2>/dev/null) == "$RAPFI_COMMIT" ]]; then
        say "Rapfi already built at ${RAPFI_COMMIT:0:7} ($dest); --force rebuilds it"
        return
    fi
    local t0=$SECONDS
    checkout "$RAPFI_SRC" "$RAPFI_COMMIT" "$src"
    local networks_commit
    networks_commit=$(git -C "$src" ls-tree HEAD Networks 2>/dev/null | awk '{ print $3 }')
    [[ -n $networks_commit ]] || networks_commit=918b757a129258e9e765f77fe17d507c2bb1a60b
    rm -rf "$build" && mkdir -p "$build" && : >"$log"
    local arch_flags
    arch_flags=$(rapfi_arch_flags)
    say "building Rapfi with $RAPFI_JOBS job(s); log in $log"
    # shellcheck disable=SC2086  # arch_flags is a list of words
    run_logged "$log" cmake -S "$src/Rapfi" -B "$build" -DCMAKE_BUILD_TYPE=Release $arch_flags
    run_logged "$log" make -C "$build" -j "$RAPFI_JOBS" rapfi
    local stage=$dest.new
    rm -rf "$stage" && mkdir -p "$stage" "$PREFIX/bin"
    install -m 755 "$build/pbrain-rapfi" "$stage/pbrain-rapfi"
    say "fetching classical weights $RAPFI_MODEL (rapfi-networks ${networks_commit:0:7})"
    networks_file "$RAPFI_NETWORKS_SRC" "$networks_commit" "classical/$RAPFI_MODEL" "$stage/$RAPFI_MODEL"
    # Settings of upstream's classical config (rapfi-networks config-example/
    # gomocalc-classical220723.toml) with the coordinates of the Gomocup protocol (x,y as sent,
    # no flip) and no opening database. With no [model.evaluator] table the evaluation is
    # classical only.
    cat >"$stage/config.toml" <<EOF
# Rapfi config written by hexjax's experiments/engines/build_engines.sh: classical evaluation.
[requirement]
min_version = [0,41,1]

[general]
reload_config_each_move = false
clear_hash_after_config_loaded = false
default_thread_num = 1            # INFO thread_num N overrides it
message_mode = "brief"            # one MESSAGE summary (speed, depth, eval, nodes) per move
coord_conversion_mode = "none"    # "x,y" as in the Gomocup protocol
default_candidate_range = "square3_line4"
memory_reserved_mb = 0
default_tt_size_kb = 32768        # 32 MiB hash; INFO max_memory BYTES overrides it

[model]
binary_file = "$RAPFI_MODEL"

[search]
aspiration_window = true
num_iteration_after_mate = 24
num_iteration_after_singular_root = 24
max_search_depth = 99

[search.timectl]
match_space = 21.0
match_space_min = 7.0
average_branch_factor = 1.7
advanced_stop_ratio = 0.75
move_horizon = 64
EOF
    echo "$RAPFI_COMMIT" >"$stage/COMMIT"
    rm -rf "$dest" && mv "$stage" "$dest"
    # Rapfi looks for config.toml in the working directory before its own; bin/pbrain-rapfi
    # names this one so that a stray config.toml where it is started cannot change it.
    cat >"$PREFIX/bin/pbrain-rapfi" <<'EOF'
#!/bin/sh
# Rapfi with the classical config installed beside it (a later --config overrides it).
# Its tool modes (opengen, selfplay, ...) reject --config: they read ./config.toml, else the
# one beside the binary.
dir="$(dirname "$(readlink -f "$0")")/../libexec/rapfi"
case "${1:-}" in
    opengen | tuning | selfplay | dataprep | database) exec "$dir/pbrain-rapfi" "$@" ;;
esac
exec "$dir/pbrain-rapfi" --config "$dir/config.toml" "$@"
EOF
    chmod 755 "$PREFIX/bin/pbrain-rapfi"
    say "Rapfi built in $(elapsed "$t0"): $PREFIX/bin/pbrain-rapfi"
}


# --- Edax --------------------------------------------------------------------------------------

edax_arch() {
    local arch=$EDAX_ARCH flags
    flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
    if [[ $arch == auto ]]; then
        # x86-64-v3 (AVX2, BMI2, LZCNT) like Rapfi's AVX2 build: nearly every x86-64 machine of
        # the last decade, unlike -march=native.
        if [[ $(uname -m) != x86_64 ]]; then arch=native
        elif [[ $flags == *" avx2"* && $flags == *" bmi2"* && $flags == *" abm"* ]]; then arch=x86-64-v3
        elif [[ $flags == *" popcnt"* && $flags == *" sse4_2"* ]]; then arch=x86-64-v2
        else arch=x86-64
        fi
    fi
    say "Edax instruction set: $arch" >&2
    echo "$arch"
}

# magic FILE N: the first N bytes of FILE, those that are not capital letters as dots.
magic() { head -c "$2" "$1" | tr -c 'A-Z' '.'; }

# edax_weights SRC OUT: OUT becomes Edax's data/eval.dat, from SRC (eval.dat itself, or an
# archive holding it: a URL or a file), checked to be an Edax weight file of the right size.
# The download and unpacking happen in OUT's folder.
edax_weights() {
    local src=$1 out=$2 tmp file
    tmp=$(dirname "$out")/weights
    rm -rf "$tmp" && mkdir -p "$tmp"
    file=$src
    if [[ ! -e $src ]]; then
        [[ $src == *://* ]] || die "--edax-eval: no such file: $src"
        say "downloading Edax's weights from $src"
        file=$tmp/$(basename "$src")
        curl -fsSL --connect-timeout 20 --retry 2 -o "$file" "$src" ||
            die "cannot download Edax's weights from $src. Edax cannot play without them" \
                "(data/eval.dat, 14 MB; upstream ships them only in its GitHub releases, as eval.7z)." \
                "Get eval.7z or eval.dat elsewhere and pass it: --edax-eval FILE"
    fi
    if [[ $(magic "$file" 4) != EDAX && $(magic "$file" 4) != XADE ]]; then
        # Not the weights themselves: an archive (eval.7z, or any format 7z reads) holding them.
        command -v 7z >/dev/null || die "7z is needed to unpack $src (Debian: p7zip-full)"
        7z x -y -o"$tmp/x" "$file" >/dev/null || die "cannot unpack $src with 7z"
        file=$(find "$tmp/x" -type f -name eval.dat | head -n 1)
        [[ -n $file ]] || die "$src holds no eval.dat"
    fi
    local head bytes
    head=$(magic "$file" 8)
    bytes=$(stat -c %s "$file")
    [[ $head == EDAXEVAL || $head == XADELAVE ]] || die "$src is not an Edax weight file (header)"
    ((bytes >= EDAX_EVAL_BYTES)) || die "$src is truncated: $bytes bytes, Edax reads $EDAX_EVAL_BYTES"
    install -m 644 "$file" "$out"
    rm -rf "$tmp"
    say "Edax's weights: $bytes bytes, sha256 $(sha256sum "$out" | cut -d' ' -f1)"
}

build_edax() {
    local dest=$PREFIX/libexec/edax src=$PREFIX/src/edax-reversi
    local build=$PREFIX/build/edax log=$PREFIX/build/edax.log
    if ((!FORCE)) && [[ -x $dest/edax && -s $dest/data/eval.dat &&
        $(cat "$dest/COMMIT" 2>/dev/null) == "$EDAX_COMMIT" ]]; then
        say "Edax already built at ${EDAX_COMMIT:0:7} ($dest); --force rebuilds it"
        return
    fi
    local t0=$SECONDS
    # The weights first: without them the binary is of no use, so a missing file fails early.
    rm -rf "$build" && mkdir -p "$build" && : >"$log"
    edax_weights "$EDAX_EVAL" "$build/eval.dat"
    checkout "$EDAX_SRC" "$EDAX_COMMIT" "$src"
    local arch
    arch=$(edax_arch)
    command -v gcc >/dev/null || die "gcc is needed for Edax"
    say "building Edax with $EDAX_JOBS job(s); log in $log"
    # One translation unit (all.c) with link-time optimisation; DFLAGS comes after the
    # Makefile's -flto=auto, so the number of LTO jobs is ours.
    run_logged "$log" make -C "$src/src" build CC=gcc OS=linux ARCH="$arch" BIN="$build" \
        DFLAGS="-flto=$EDAX_JOBS"
    local stage=$dest.new
    rm -rf "$stage" && mkdir -p "$stage/data" "$PREFIX/bin"
    install -m 755 "$build/lEdax-$arch" "$stage/edax"
    mv "$build/eval.dat" "$stage/data/eval.dat"
    echo "$EDAX_COMMIT" >"$stage/COMMIT"
    rm -rf "$dest" && mv "$stage" "$dest"
    cat >"$PREFIX/bin/edax" <<'EOF'
#!/bin/sh
# Edax with the weights installed beside it, one search thread, and an opening book only if
# libexec/edax/data/book.dat exists (none is installed). Options given later override these
# (-n 2, -book-file FILE); -l N sets the level (default 21), -gtp speaks GTP. Edax also reads
# ./edax.ini, if there is one, where it is started.
dir="$(dirname "$(readlink -f "$0")")/../libexec/edax"
exec "$dir/edax" -eval-file "$dir/data/eval.dat" -book-file "$dir/data/book.dat" -n 1 "$@"
EOF
    chmod 755 "$PREFIX/bin/edax"
    say "Edax built in $(elapsed "$t0"): $PREFIX/bin/edax"
}

build_grhino() {
    local dest=$PREFIX/libexec/grhino build=$PREFIX/build/grhino
    if ((!FORCE)) && [[ -x $dest/gtp-rhino && $(cat "$dest/VERSION" 2>/dev/null) == "$GRHINO_VERSION" ]]; then
        say "GRhino $GRHINO_VERSION already installed: $PREFIX/bin/gtp-rhino"
        return
    fi
    [[ -s /usr/share/grhino/book/book.bin ]] ||
        die "GRhino's book is missing (/usr/share/grhino): install the Debian package grhino-data"
    say "GRhino $GRHINO_VERSION: Debian's package, unpacked"
    rm -rf "$build"
    mkdir -p "$build" "$dest" "$PREFIX/bin"
    (cd "$build" && apt-get download -qq "grhino=$GRHINO_VERSION") ||
        die "apt-get download grhino=$GRHINO_VERSION failed (a Debian bookworm package source is needed)"
    dpkg-deb -x "$build"/grhino_*.deb "$build/root"
    install -m 755 "$build/root/usr/games/gtp-rhino" "$dest/gtp-rhino"
    echo "$GRHINO_VERSION" >"$dest/VERSION"
    cat >"$PREFIX/bin/gtp-rhino" <<'EOF'
#!/bin/sh
# GRhino's GTP front end (-l 1..5 for its level, default 3).
exec "$(dirname "$(readlink -f "$0")")/../libexec/grhino/gtp-rhino" "$@"
EOF
    chmod 755 "$PREFIX/bin/gtp-rhino"
    say "GRhino installed: $PREFIX/bin/gtp-rhino"
}

if wanted mohex; then build_mohex; fi
if wanted rapfi; then build_rapfi; fi
if wanted grhino; then build_grhino; fi
if wanted edax; then build_edax; fi  # last: without GitHub's releases its weights stop it

# --- How to use them ---------------------------------------------------------------------------

cat <<EOF

Engines in $PREFIX/bin:
EOF
if wanted mohex; then
    cat <<EOF

  MoHex (Hex, GTP on stdin/stdout; logs to stderr):
    printf 'boardsize 11\nparam_game allow_swap 0\nparam_mohex max_games 1000\ngenmove b\nquit\n' \\
        | $PREFIX/bin/mohex --use-logfile=0
EOF
fi
if wanted rapfi; then
    cat <<EOF

  Rapfi (Gomoku/renju, Gomocup protocol on stdin/stdout; rule 0 freestyle, 1 standard, 4 renju):
    printf 'START 15\nINFO rule 0\nINFO max_node 100000\nBEGIN\nEND\n' | $PREFIX/bin/pbrain-rapfi
EOF
fi
if wanted edax; then
    cat <<EOF

  Edax (Othello 8x8, GTP on stdin/stdout with -gtp; -l N for its level, 0 to 60):
    printf 'boardsize 8\nclear_board\nplay b d3\ngenmove w\nshowboard\nquit\n' | $PREFIX/bin/edax -gtp -l 10
EOF
fi
if wanted grhino; then
    cat <<EOF

  GRhino (Othello 8x8, GTP on stdin/stdout; -l N for its level, 1 to 5):
    printf 'boardsize 8\nclear_board\nplay b d3\ngenmove w\nshowboard\nquit\n' | $PREFIX/bin/gtp-rhino -l 5
EOF
fi
echo
