//go:build !finops_nocloud

package objstore

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/finops-oss/finops/internal/publish/publishtest"
)

// TestClientOptions: on a custom endpoint the client sends request checksums
// and validates response checksums only when an operation requires them
// (S3-compatible services reject the SDK's default trailing checksums); on
// AWS it keeps the SDK's defaults.
func TestClientOptions(t *testing.T) {
	custom := s3.NewFromConfig(aws.Config{Region: "us-east-1"}, ClientOptions(S3Config{
		Endpoint: "https://s3.example.internal/", PathStyle: true})).Options()
	if custom.RequestChecksumCalculation != aws.RequestChecksumCalculationWhenRequired {
		t.Errorf("custom endpoint: RequestChecksumCalculation = %v, want WhenRequired", custom.RequestChecksumCalculation)
	}
	if custom.ResponseChecksumValidation != aws.ResponseChecksumValidationWhenRequired {
		t.Errorf("custom endpoint: ResponseChecksumValidation = %v, want WhenRequired", custom.ResponseChecksumValidation)
	}
	if aws.ToString(custom.BaseEndpoint) != "https://s3.example.internal" || !custom.UsePathStyle {
		t.Errorf("custom endpoint: BaseEndpoint %q, UsePathStyle %v", aws.ToString(custom.BaseEndpoint), custom.UsePathStyle)
	}

	def := s3.NewFromConfig(aws.Config{Region: "us-east-1"}).Options()
	onAWS := s3.NewFromConfig(aws.Config{Region: "us-east-1"}, ClientOptions(S3Config{})).Options()
	if onAWS.RequestChecksumCalculation != def.RequestChecksumCalculation ||
		onAWS.ResponseChecksumValidation != def.ResponseChecksumValidation {
		t.Errorf("AWS: checksum settings %v/%v, want the SDK defaults %v/%v", onAWS.RequestChecksumCalculation,
			onAWS.ResponseChecksumValidation, def.RequestChecksumCalculation, def.ResponseChecksumValidation)
	}
	if onAWS.BaseEndpoint != nil || onAWS.UsePathStyle {
		t.Errorf("AWS: BaseEndpoint %v, UsePathStyle %v", onAWS.BaseEndpoint, onAWS.UsePathStyle)
	}
}

// newTestS3 is a client of bucket "reports" of a real versitygw.
func newTestS3(t *testing.T) (*S3, *publishtest.S3Server) {
	t.Helper()
	srv := publishtest.StartS3(t, "finops-test-key", "finops-test-secret-value")
	srv.CreateBucket(t, "reports")
	c, err := NewS3(context.Background(), S3Config{Bucket: "reports", Region: srv.Region, Endpoint: srv.URL,
		PathStyle: true, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, MaxAttempts: 2, MaxBackoff: 100 * time.Millisecond, Pkg: "publish"})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}
