// Package fetchtest starts the real servers the fetch tests talk to —
// Azurite (Azure Blob Storage's emulator) and fake-gcs-server (Google Cloud
// Storage's JSON API) — on 127.0.0.1 with free ports, in memory, waits
// until they answer, and stops them when the test ends.
//
// Where the binaries are found:
//   - Azurite: $FINOPS_AZURITE_BLOB (the azurite-blob script), else
//     azurite-blob on PATH. .ci/run installs it with
//     `npm install --prefix /opt/azurite azurite@3.37.0` and puts
//     /opt/azurite/node_modules/.bin on PATH.
//   - fake-gcs-server: PATH, $GOBIN or $(go env GOPATH)/bin, where
//     `go install github.com/fsouza/fake-gcs-server@v1.56.1` puts it.
//
// Without them a test is skipped with the install command, except in CI
// (CI=true or FINOPS_TEST_REQUIRE=1), where it fails (internal/testenv).
package fetchtest

// Install commands, pinned as in .ci/run.
const (
	AzuriteInstall = "npm install --prefix /opt/azurite azurite@3.37.0 and add /opt/azurite/node_modules/.bin to PATH (or set FINOPS_AZURITE_BLOB to its azurite-blob)"
	FakeGCSInstall = "go install github.com/fsouza/fake-gcs-server@v1.56.1"
)
