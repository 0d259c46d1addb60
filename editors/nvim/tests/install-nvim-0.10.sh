#!/bin/sh
# Installs Neovim 0.10, the second Neovim the plugin's specs and
# lsp/clients_test.go run on, when it is missing: Debian trixie's packages,
# extracted (not installed) into a cache outside the repository,
# $REASONIX_TEST_CACHE (default ~/.cache/reasonix-test), nvim-0.10/.
# Prints the path of the launcher, which the tests call as `nvim`.
#
#   sh editors/nvim/tests/install-nvim-0.10.sh
#
# The packages come from the Debian mirror the machine's own apt uses
# (the first .../debian URI of /etc/apt/sources.list or
# sources.list.d/*.list, *.sources; $REASONIX_DEBIAN_MIRROR overrides it),
# fetched with `apt-get download` through a source list, package lists and
# cache of its own in the cache directory: the system's apt state is
# neither read for versions nor written. trixie's Neovim needs trixie's C
# library, newer than an older Debian's, so the launcher starts it through
# trixie's own dynamic loader with the extracted libraries first; programs
# Neovim starts (the language server, shells) run on the system's.
set -eu

SUITE=trixie
# Neovim, its runtime files, and what `nvim` links (ld.so --list), with the
# packages those come from: the C library and its loader, libgcc_s.
PACKAGES="neovim neovim-runtime libluajit-5.1-2 libluajit-5.1-common lua-luv lua-lpeg libuv1t64
libvterm0 libtree-sitter0.22 libunibilium4 libmsgpack-c2 libc6 libgcc-s1"

cache=${REASONIX_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/reasonix-test}
dir=$cache/nvim-0.10

# debian_mirror prints the first Debian archive URI (one ending in
# /debian) the machine's apt sources name, in either source format.
debian_mirror() {
	if [ -n "${REASONIX_DEBIAN_MIRROR:-}" ]; then
		echo "$REASONIX_DEBIAN_MIRROR"
		return
	fi
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		case $f in
		*.sources) sed -n 's/^URIs:[[:space:]]*//p' "$f" | tr ' \t' '\n\n' ;;
		*) sed -n 's/^[[:space:]]*deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\).*/\2/p' "$f" ;;
		esac
	done | sed 's:/*$::' | grep -m1 '^[a-z+]*://.*/debian$'
}

if [ ! -f "$dir/.installed" ]; then
	command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 || {
		echo "install-nvim-0.10.sh: needs apt-get and dpkg (Debian)" >&2
		exit 1
	}
	mirror=$(debian_mirror) || {
		echo "install-nvim-0.10.sh: no Debian mirror in /etc/apt; set REASONIX_DEBIAN_MIRROR" >&2
		exit 1
	}
	echo "installing Neovim 0.10 (Debian $SUITE, from $mirror) into $dir" >&2
	rm -rf "$dir"
	apt=$dir/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $SUITE main" >"$apt/sources.list"
	# The system's update hooks (cache cleaners, AppStream, PackageKit)
	# act on the system's state, not on these lists: none of them run.
	cat >"$apt/apt.conf" <<-'EOF'
	#clear APT::Update::Pre-Invoke;
	#clear APT::Update::Post-Invoke;
	#clear APT::Update::Post-Invoke-Success;
	#clear Acquire::IndexTargets::deb::DEP-11;
	EOF
	set -- -c "$apt/apt.conf" \
		-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State::Lists="$apt/lists" -o Dir::State::status=/dev/null \
		-o Dir::Cache="$apt/cache" -o Acquire::Languages=none \
		-o APT::Sandbox::User="$(id -un)" -qq
	apt-get "$@" update >&2
	# shellcheck disable=SC2086 # a list of package names
	(cd "$apt/debs" && apt-get "$@" download $PACKAGES) >&2
	for deb in "$apt/debs"/*.deb; do
		dpkg -x "$deb" "$dir/root"
	done
	rm -rf "$apt"

	# Neovim looks for its parsers in ../lib/nvim from its executable, which
	# through the loader is usr/lib/x86_64-linux-gnu: usr/lib/lib/nvim.
	ln -s . "$dir/root/usr/lib/lib"
	# $VIM and $VIMRUNTIME keep the system Neovim's files out.
	cat >"$dir/nvim" <<-'EOF'
	#!/bin/sh
	r=$(cd "$(dirname "$0")" && pwd)/root
	lib=$r/usr/lib/x86_64-linux-gnu
	export VIM="$r/usr/share/nvim" VIMRUNTIME="$r/usr/share/nvim/runtime"
	exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$r/usr/bin/nvim" "$@"
	EOF
	chmod +x "$dir/nvim"
	version=$("$dir/nvim" --version | head -n 1)
	case $version in
	"NVIM v0.10."*) echo "installed $version" >&2 ;;
	*)
		echo "install-nvim-0.10.sh: Debian $SUITE has $version, not Neovim 0.10" >&2
		exit 1
		;;
	esac
	: >"$dir/.installed"
fi
echo "$dir/nvim"
