package kairos

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"regexp"
	"strconv"
	"time"
)

var signaturePattern = regexp.MustCompile(`^t=(\d+),v1=([0-9a-f]{64})$`)

// VerifyWebhook checks an incoming request's X-Kairos-Signature header
// (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) against the tenant's webhook secret.
// rawBody must be the body exactly as received. True only for a well-formed header whose
// timestamp is within tolerance of now (5 minutes when tolerance is 0) and whose signature matches.
func VerifyWebhook(rawBody []byte, header, secret string, tolerance time.Duration, now time.Time) bool {
	m := signaturePattern.FindStringSubmatch(header)
	if m == nil {
		return false
	}
	t, err := strconv.ParseInt(m[1], 10, 64)
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
	mac.Write([]byte(m[1] + "."))
	mac.Write(rawBody)
	given, err := hex.DecodeString(m[2])
	return err == nil && hmac.Equal(mac.Sum(nil), given)
}
