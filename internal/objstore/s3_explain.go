//go:build !finops_nocloud

package objstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

func (c *S3) fetchErr(err error) error { return c.Explain(err) }

// Explain adds to an S3 error what to check: the bucket name, the
// credentials or the endpoint.
func (c *S3) Explain(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var hint string
	var api smithy.APIError
	var send *smithyhttp.RequestSendError
	msg := err.Error()
	switch {
	case errors.As(err, &api) && api.ErrorCode() == "NoSuchBucket":
		hint = fmt.Sprintf("bucket %q does not exist%s: check the bucket in the s3:// URL (and publish.s3.endpoint and region)", c.bucket, c.at())
	case errors.As(err, &api) && (api.ErrorCode() == "AccessDenied" || api.ErrorCode() == "Forbidden" ||
		api.ErrorCode() == "AllAccessDisabled"):
		hint = fmt.Sprintf("access denied to bucket %q: the credentials need s3:ListBucket and s3:GetObject on it to read sources, and s3:PutObject and s3:DeleteObject to publish (and for finops doctor's probe)", c.bucket)
	case errors.As(err, &api) && (api.ErrorCode() == "InvalidAccessKeyId" || api.ErrorCode() == "SignatureDoesNotMatch" ||
		api.ErrorCode() == "ExpiredToken" || api.ErrorCode() == "InvalidToken"):
		hint = "the service refused the credentials: check the keys named by publish.s3.access_key_env and secret_key_env " +
			"(or the AWS credential chain's) and publish.s3.region"
	case strings.Contains(msg, "get credentials") || strings.Contains(msg, "failed to refresh cached credentials") ||
		strings.Contains(msg, "failed to retrieve credentials"):
		hint = "no AWS credentials found: set publish.s3.access_key_env and secret_key_env to the names of environment " +
			"variables holding them, or configure the AWS credential chain (AWS_ACCESS_KEY_ID, a profile, an instance role)"
	case errors.As(err, &send):
		hint = fmt.Sprintf("cannot reach the S3 service%s: check publish.s3.endpoint (and path_style for S3-compatible services) and the network", c.at())
	case errors.As(err, &api) && api.ErrorCode() == "PermanentRedirect":
		hint = fmt.Sprintf("bucket %q is in another region: set publish.s3.region to its region", c.bucket)
	default:
		return err
	}
	return fmt.Errorf("%w; %s", err, hint)
}

// at names the custom endpoint, if any, for messages.
func (c *S3) at() string {
	if c.endpoint == "" {
		return ""
	}
	return " at " + c.endpoint
}
