package fetchtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/finops-oss/finops/internal/proctest"
	"github.com/finops-oss/finops/internal/testenv"
)

// Azurite's one built-in account and its published key (not a secret:
// every Azurite has it).
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Azurite is a running Azurite blob service.
type Azurite struct {
	// Endpoint is the account's blob service URL,
	// http://127.0.0.1:PORT/devstoreaccount1 (path style).
	Endpoint string
	client   *azblob.Client
}

// StartAzurite starts azurite-blob in memory on a free port; it stops when
// the test ends.
func StartAzurite(t testing.TB) *Azurite {
	t.Helper()
	bin := os.Getenv("FINOPS_AZURITE_BLOB")
	if bin == "" {
		p, err := exec.LookPath("azurite-blob")
		if err != nil {
			testenv.Missing(t, "azurite-blob not found on PATH (or $FINOPS_AZURITE_BLOB); install it with: "+AzuriteInstall)
			return nil
		}
		bin = p
	}
	port := proctest.FreePort(t)
	// --skipApiVersionCheck: the SDK may speak a newer API version than the
	// emulator knows; --disableProductStyleUrl: the account is in the path,
	// never read from the host name 127.0.0.1.
	p := proctest.Start(t, bin, "--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port), "--inMemoryPersistence",
		"--skipApiVersionCheck", "--disableProductStyleUrl", "--silent")
	a := &Azurite{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/%s", port, AzuriteAccount)}
	// Node starts slowly on a loaded machine: a minute and a half, not 30s.
	p.WaitHTTP(t, "azurite-blob", a.Endpoint+"?comp=list", 90*time.Second)
	cred, err := azblob.NewSharedKeyCredential(AzuriteAccount, AzuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	if a.client, err = azblob.NewClientWithSharedKeyCredential(a.Endpoint+"/", cred, nil); err != nil {
		t.Fatal(err)
	}
	return a
}

// CreateContainer creates a container.
func (a *Azurite) CreateContainer(t testing.TB, name string) {
	t.Helper()
	if _, err := a.client.CreateContainer(context.Background(), name, nil); err != nil {
		t.Fatalf("create container %s: %v", name, err)
	}
}

// Put uploads a block blob.
func (a *Azurite) Put(t testing.TB, container, name string, body []byte) {
	t.Helper()
	if _, err := a.client.UploadBuffer(context.Background(), container, name, body, nil); err != nil {
		t.Fatalf("put %s/%s: %v", container, name, err)
	}
}

// SAS signs a container SAS token (without '?') that may read and list
// the container until expiry.
func (a *Azurite) SAS(t testing.TB, container string, expiry time.Time) string {
	t.Helper()
	cred, err := azblob.NewSharedKeyCredential(AzuriteAccount, AzuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	q, err := sas.BlobSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		StartTime:     time.Now().Add(-time.Hour).UTC(),
		ExpiryTime:    expiry.UTC(),
		Permissions:   (&sas.ContainerPermissions{Read: true, List: true}).String(),
		ContainerName: container,
	}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	return q.Encode()
}

// SetMD5 overwrites a blob's stored Content-MD5 (Set Blob Properties, as a
// broken uploader may), so that it no longer matches the blob's bytes.
func (a *Azurite) SetMD5(t testing.TB, container, name string, sum []byte) {
	t.Helper()
	bc := a.client.ServiceClient().NewContainerClient(container).NewBlobClient(name)
	if _, err := bc.SetHTTPHeaders(context.Background(), blob.HTTPHeaders{BlobContentMD5: sum}, nil); err != nil {
		t.Fatalf("set MD5 of %s/%s: %v", container, name, err)
	}
}
