package publish

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"time"
)

// feishuSign is the signature of a Feishu or Lark custom bot: the key is
// timestamp+"\n"+secret and the message is empty, base64 of the
// HMAC-SHA256, with the timestamp in seconds (the bot refuses one more than
// an hour off). The JSON body carries both as "timestamp" and "sign".
// https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot (签名校验),
// https://open.larksuite.com/document/client-docs/bot-v3/add-custom-bot
func feishuSign(secret string, now time.Time) (timestamp, sign string) {
	timestamp = strconv.FormatInt(now.Unix(), 10)
	m := hmac.New(sha256.New, []byte(timestamp+"\n"+secret))
	return timestamp, base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// dingtalkSign is the signature of a DingTalk custom robot ("加签"): the key
// is the secret, the message timestamp+"\n"+secret with the timestamp in
// milliseconds, base64 of the HMAC-SHA256. Both go in the query as
// timestamp= and sign=, the sign URL-encoded (url.Values does that).
// https://open.dingtalk.com/document/robots/customize-robot-security-settings
func dingtalkSign(secret string, now time.Time) (timestamp, sign string) {
	timestamp = strconv.FormatInt(now.UnixMilli(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp + "\n" + secret))
	return timestamp, base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// jsonSignatureHeader carries, when the channel has a secret, "sha256=" and
// the hex HMAC-SHA256 of the body keyed by the secret: GitHub's webhook
// scheme (X-Hub-Signature-256), which receivers already know how to check.
// The body holds sent_at, so a receiver can refuse a replayed old one.
const jsonSignatureHeader = "X-Finops-Signature-256"

func jsonSign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}
