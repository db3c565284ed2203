package kairos

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// One timestamp, then one signature per secret Kairos signed with (two during a secret
// rotation's grace, the newest first).
var (
	signaturePattern   = regexp.MustCompile(`^t=(\d+)((?:,v1=[0-9a-f]{64})+)$`)
	signatureV2Pattern = regexp.MustCompile(`^t=(\d+)((?:,v2=[0-9a-f]{64})+)$`)
)

// VerifyWebhook checks an incoming request's X-Kairos-Signature header
// (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) against the tenant's webhook secret.
// rawBody must be the body exactly as received. True only for a well-formed header whose
// timestamp is within tolerance of now (5 minutes when tolerance is 0) and one of whose signatures
// (one per secret Kairos signs with: two during a rotation's grace) matches. To accept the old
// secret too during a grace, call it once with each.
//
// Deprecated: use [VerifyWebhookV2]. v1 covers only the timestamp and the body, so a captured
// delivery verifies again under another execution id, at another URL or with another method.
// Kairos sends X-Kairos-Signature until version 0.3.0.
func VerifyWebhook(rawBody []byte, header, secret string, tolerance time.Duration, now time.Time) bool {
	m := signaturePattern.FindStringSubmatch(header)
	if m == nil {
		return false
	}
	return signedWith([]string{secret}, m[1], strings.Split(m[2], ",v1=")[1:], m[1]+".", rawBody, tolerance, now)
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
// During a secret rotation's grace the header carries a signature per secret; use
// [VerifyWebhookV2Secrets] to accept the old secret as well as the new one.
func VerifyWebhookV2(header http.Header, method, targetURL string, rawBody []byte, secret string, tolerance time.Duration, now time.Time) bool {
	return VerifyWebhookV2Secrets(header, method, targetURL, rawBody, []string{secret}, tolerance, now)
}

// VerifyWebhookV2Secrets is [VerifyWebhookV2] with several secrets: during a secret rotation's
// grace, []string{newSecret, oldSecret}. Kairos then sends `t=<t>,v2=<new>,v2=<old>`, and the
// request verifies when any of the header's signatures matches any of the secrets (each pair is
// compared in constant time). No secret at all verifies nothing.
func VerifyWebhookV2Secrets(header http.Header, method, targetURL string, rawBody []byte, secrets []string, tolerance time.Duration, now time.Time) bool {
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
	return signedWith(secrets, m[1], strings.Split(m[2], ",v2=")[1:], prefix, rawBody, tolerance, now)
}

// signedWith reports whether timestamp is within tolerance of now (the replay window, either way)
// and one of signatures (hex) is the HMAC of prefix followed by rawBody with one of secrets.
func signedWith(secrets []string, timestamp string, signatures []string, prefix string, rawBody []byte, tolerance time.Duration, now time.Time) bool {
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
	given := make([][]byte, 0, len(signatures))
	for _, signature := range signatures {
		sum, err := hex.DecodeString(signature)
		if err != nil {
			return false
		}
		given = append(given, sum)
	}
	matched := false
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(prefix))
		mac.Write(rawBody)
		expected := mac.Sum(nil)
		// Every pair is compared, so the time taken does not tell which secret or signature matched.
		for _, sum := range given {
			matched = hmac.Equal(expected, sum) || matched
		}
	}
	return matched
}
