package kairos

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

var (
	signaturePattern   = regexp.MustCompile(`^t=(\d+),v1=([0-9a-f]{64})$`)
	signatureV2Pattern = regexp.MustCompile(`^t=(\d+),v2=([0-9a-f]{64})$`)
)

// VerifyWebhook checks an incoming request's X-Kairos-Signature header
// (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) against the tenant's webhook secret.
// rawBody must be the body exactly as received. True only for a well-formed header whose
// timestamp is within tolerance of now (5 minutes when tolerance is 0) and whose signature matches.
//
// Deprecated: use [VerifyWebhookV2]. v1 covers only the timestamp and the body, so a captured
// delivery verifies again under another execution id, at another URL or with another method.
// Kairos sends X-Kairos-Signature until version 0.3.0.
func VerifyWebhook(rawBody []byte, header, secret string, tolerance time.Duration, now time.Time) bool {
	m := signaturePattern.FindStringSubmatch(header)
	if m == nil {
		return false
	}
	return signedWith(secret, m[1], m[2], m[1]+".", rawBody, tolerance, now)
}

// VerifyWebhookV2 checks an incoming request's X-Kairos-Signature-V2 header
// (`t=<unix seconds>,v2=<hex HMAC-SHA256 of "v2\n<t>\n<execution id>\n<METHOD>\n<url>\n<body>">`)
// against the tenant's webhook secret. The signature and the execution id (X-Kairos-Execution-Id)
// are read from header; method is the request's (r.Method); targetURL is the job's target URL
// exactly as Kairos shows it (target.http.url): behind a proxy, the public URL the job names, not
// one rebuilt from the request. rawBody must be the body exactly as received (empty for GET and
// DELETE).
//
// True only for a well-formed header whose timestamp is within tolerance of now (5 minutes when
// tolerance is 0) and whose signature matches this execution id, method, URL and body, so a replay
// of a captured delivery under another execution id, to another URL or with another method is
// refused and the execution id is then safe to deduplicate on. A repeated header, or an
// Idempotency-Key other than the execution id (Kairos sends the same id in both), is refused too.
func VerifyWebhookV2(header http.Header, method, targetURL string, rawBody []byte, secret string, tolerance time.Duration, now time.Time) bool {
	signature, executionID := header.Values("X-Kairos-Signature-V2"), header.Values("X-Kairos-Execution-Id")
	if len(signature) != 1 || len(executionID) != 1 {
		return false
	}
	if keys := header.Values("Idempotency-Key"); len(keys) > 1 || (len(keys) == 1 && keys[0] != executionID[0]) {
		return false
	}
	m := signatureV2Pattern.FindStringSubmatch(signature[0])
	if m == nil {
		return false
	}
	prefix := "v2\n" + m[1] + "\n" + executionID[0] + "\n" + method + "\n" + targetURL + "\n"
	return signedWith(secret, m[1], m[2], prefix, rawBody, tolerance, now)
}

// signedWith reports whether timestamp is within tolerance of now and given is the hex HMAC of
// prefix followed by rawBody.
func signedWith(secret, timestamp, given, prefix string, rawBody []byte, tolerance time.Duration, now time.Time) bool {
	t, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return false
	}
	if tolerance == 0 {
		tolerance = 5 * time.Minute
	}
	if math.Abs(float64(now.Unix()-t)) > tolerance.Seconds() {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(prefix))
	mac.Write(rawBody)
	sum, err := hex.DecodeString(given)
	return err == nil && hmac.Equal(mac.Sum(nil), sum)
}
