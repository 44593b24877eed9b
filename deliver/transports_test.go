package deliver

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/config"
)

// TestSMTPSettingsCAFileNotRegular: publish.smtp.ca_file naming a FIFO
// nobody writes, /dev/zero or a folder is refused at once naming the key,
// never read until the run hangs or fills its memory (issue #26).
func TestSMTPSettingsCAFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ca.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, p := range []string{fifo, "/dev/zero", dir} {
		done := make(chan error, 1)
		go func() {
			_, err := SMTPSettings(context.Background(), config.SMTP{Host: "smtp.example.com", CAFile: p}, "")
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "publish.smtp.ca_file") || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: err = %v, want it refused naming the key", p, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5 s", p)
		}
	}
}
