#!/usr/bin/env bash
# make lint (and so make test): staticcheck and deadcode, at the versions
# pinned here, which is also where .ci/run installs them from
# (scripts/lint.sh install). A missing tool, or one at another version
# (whose findings differ), skips its check with the install command on a
# developer's machine and fails in CI (CI=true) or with
# FINOPS_TEST_REQUIRE=1, the rule internal/testenv applies to the tests'
# real servers, so CI can never pass without running both.
#
# deadcode policy: `deadcode -test ./...` must print nothing, that is, every
# function is reached from the finops binary or from a test. A function that
# only tests reach may stay (a test helper, or an API that a test drives
# directly); a function that nothing reaches is deleted, not kept "for later".
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
STATICCHECK_MODULE=honnef.co/go/tools
STATICCHECK_VERSION=v0.8.2 # the newest that Go 1.26 builds (its go.mod: go 1.26.0)
DEADCODE_MODULE=golang.org/x/tools
DEADCODE_VERSION=v0.52.0

if [ "${1:-}" = install ]; then
	"$GO" install "$STATICCHECK_MODULE/cmd/staticcheck@$STATICCHECK_VERSION"
	"$GO" install "$DEADCODE_MODULE/cmd/deadcode@$DEADCODE_VERSION"
	exit 0
fi

required() { [ "${CI:-}" = true ] || [ "${FINOPS_TEST_REQUIRE:-}" = 1 ]; }

# tool NAME MODULE VERSION prints the path of NAME (on PATH, else in
# $(go env GOPATH)/bin) when it was built from MODULE at VERSION; otherwise
# it says what is wrong and how to fix it, and fails.
tool() {
	local name=$1 module=$2 version=$3 bin
	bin=$(command -v "$name" 2>/dev/null || true)
	if [ -z "$bin" ]; then
		bin="$("$GO" env GOPATH | cut -d: -f1)/bin/$name"
		[ -x "$bin" ] || bin=
	fi
	local install="go install $module/cmd/$name@$version (or scripts/lint.sh install)"
	if [ -z "$bin" ]; then
		echo "lint: $name not found: $install" >&2
		return 1
	fi
	# go version -m names the module a binary was built from: "mod PATH VERSION".
	if ! "$GO" version -m "$bin" 2>/dev/null | grep -q "^[[:space:]]*mod[[:space:]]*$module[[:space:]]*$version[[:space:]]"; then
		echo "lint: $bin is not $name $version (its findings would differ): $install" >&2
		return 1
	fi
	echo "$bin"
}

status=0
missing=0
if sc=$(tool staticcheck "$STATICCHECK_MODULE" "$STATICCHECK_VERSION"); then
	echo "lint: staticcheck ./... ($STATICCHECK_VERSION)"
	"$sc" ./... || status=1
else
	missing=1
fi
if dc=$(tool deadcode "$DEADCODE_MODULE" "$DEADCODE_VERSION"); then
	echo "lint: deadcode -test ./... ($DEADCODE_VERSION)"
	out=$("$dc" -test ./...) || status=1
	if [ -n "$out" ]; then
		echo "$out"
		echo "lint: deadcode: the functions above are reached neither from finops nor from a test: delete them" >&2
		status=1
	fi
else
	missing=1
fi
if [ "$missing" = 1 ]; then
	if required; then
		echo "lint: FAIL: a linter is missing (CI=true or FINOPS_TEST_REQUIRE=1)" >&2
		status=1
	else
		echo "lint: SKIPPED the missing linter above (CI fails instead)" >&2
	fi
fi
exit "$status"
