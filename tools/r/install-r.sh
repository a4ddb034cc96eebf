#!/usr/bin/env bash
# Install R and its flexmix package from Debian (r-base-core, r-cran-flexmix), for the tests that
# compare hiddenbn's latent class regression with flexmix (tests/test_regression_peers.py). Run
# as root; running it again when both are there changes nothing.
#
# Exit status: 0 when `Rscript` loads flexmix, and also when they cannot be installed here for a
# reason outside the project (not root, no apt-get, the Debian mirror cannot be reached), after
# saying why: the flexmix tests then skip, naming what is missing. Anything else is a failure.
set -euo pipefail

PACKAGES=(r-base-core r-cran-flexmix)

say() { echo "install-r: $*"; }
skip() { echo "install-r: skipped: $*; the flexmix tests will skip" >&2; exit 0; }
fail() { echo "install-r: error: $*" >&2; exit 1; }

flexmix_loads() { command -v Rscript >/dev/null && Rscript -e 'library(flexmix)' >/dev/null 2>&1; }

if flexmix_loads; then
    say "R and flexmix are installed ($(Rscript -e 'cat(R.version.string)'))"
    exit 0
fi
[ "$(id -u)" = 0 ] || skip "not root: apt-get needs root (run: sudo $0)"
command -v apt-get >/dev/null || skip "no apt-get: this script installs R from Debian packages"

say "installing ${PACKAGES[*]}"
export DEBIAN_FRONTEND=noninteractive
# `apt-get update` exits 0 even when it cannot fetch the lists, so the download below is what
# tells an unreachable mirror apart from a broken installation.
apt-get update -qq || true
apt-get install -y -qq --no-install-recommends --download-only "${PACKAGES[@]}" \
    || skip "apt-get cannot download ${PACKAGES[*]} (is the Debian mirror reachable?)"
apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
flexmix_loads || fail "R was installed but \`Rscript -e 'library(flexmix)'\` fails"
say "R and flexmix are installed ($(Rscript -e 'cat(R.version.string)'))"
