package fetch

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   Source
		errHas string // "" for none; the error must not echo the input when it holds a secret
		secret string
	}{
		{in: "az://billing/exports/*/*.csv", want: Source{Kind: KindAzure, Bucket: "billing", Key: "exports/*/*.csv"}},
		{in: "az://billing", want: Source{Kind: KindAzure, Bucket: "billing"}},
		{in: "AZ://billing/x", want: Source{Kind: KindAzure, Bucket: "billing", Key: "x"}},
		{in: "gs://bills/gcp/2026-*/*.parquet", want: Source{Kind: KindGCS, Bucket: "bills", Key: "gcp/2026-*/*.parquet"}},
		{in: "https://acct.blob.core.windows.net/costs/exports/my%20export/", want: Source{Kind: KindAzure, Account: "acct",
			Host: "acct.blob.core.windows.net", Bucket: "costs", Key: "exports/my export/"}},
		{in: "https://acct.blob.core.chinacloudapi.cn/costs", want: Source{Kind: KindAzure, Account: "acct",
			Host: "acct.blob.core.chinacloudapi.cn", Bucket: "costs"}},
		{in: "az:///exports", errHas: "no container"},
		{in: "gs://", errHas: "no bucket"},
		{in: "gs://b*/x", errHas: "is not a bucket name"},
		{in: "https://acct.blob.core.windows.net/costs/x?sv=2024&sig=SECRETSIG", errHas: "sas_token_env", secret: "SECRETSIG"},
		{in: "https://user:SECRETPW@acct.blob.core.windows.net/costs", errHas: "without credentials", secret: "SECRETPW"},
		{in: "az://user:SECRETPW@c/x", errHas: "must not contain credentials", secret: "SECRETPW"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if !IsRemote(tc.in) {
				t.Fatalf("IsRemote(%q) = false", tc.in)
			}
			got, err := Parse(tc.in)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err %v, want %q", err, tc.errHas)
				}
				if tc.secret != "" && strings.Contains(err.Error(), tc.secret) {
					t.Errorf("error shows the secret: %v", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Parse = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	for _, local := range []string{"bills/az.csv", "s3://b/x", "https://example.com/costs", "https://blob.core.windows.net.evil.example/x", "-"} {
		if IsRemote(local) {
			t.Errorf("IsRemote(%q) = true", local)
		}
	}
}
