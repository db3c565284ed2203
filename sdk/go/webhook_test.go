package kairos_test

// Webhook verification needs no running Kairos: `go test -run Webhook ./...` alone runs these.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	kairos "kairos.local/sdk/go"
)

const (
	v2Secret    = "whsec_test_secret"
	executionID = "RXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2Nw"
	otherID     = "RXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2OA"
	targetURL   = "https://hooks.example.com/kairos?tenant=a"
)

func signV2(t int64, id, method, url, body, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v2\n%d\n%s\n%s\n%s\n%s", t, id, method, url, body)
	return fmt.Sprintf("t=%d,v2=%s", t, hex.EncodeToString(mac.Sum(nil)))
}

// delivered is the header of a delivery as Kairos sends it, with id as its execution id.
func delivered(signature, id string) http.Header {
	h := http.Header{}
	h.Set("X-Kairos-Signature-V2", signature)
	h.Set("X-Kairos-Execution-Id", id)
	h.Set("Idempotency-Key", id)
	return h
}

func TestVerifyWebhookV2KnownVector(t *testing.T) {
	// The same vectors as the server's tests/unit/webhookSignature.test.ts (secret, 2025-03-01T12:00:00Z).
	at := time.Unix(1740830400, 0)
	post := delivered("t=1740830400,v2=13003e91464601658a3e785df63fca434d1e8555911965b012222e67cae90607", executionID)
	if !kairos.VerifyWebhookV2(post, "POST", targetURL, []byte(`{"hello":"world"}`), v2Secret, 0, at) {
		t.Error("the POST vector does not verify")
	}
	get := delivered("t=1740830400,v2=3ef98a8205e0c798c100798fc0c0f880ee98c342064a7538059683d316b7ff55", executionID)
	if !kairos.VerifyWebhookV2(get, "GET", targetURL, nil, v2Secret, 0, at) {
		t.Error("the GET vector (empty body) does not verify")
	}
}

func TestVerifyWebhookV2(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := `{"executionId":"e1"}`
	valid := signV2(at.Unix(), executionID, "POST", targetURL, body, v2Secret)
	getValid := signV2(at.Unix(), executionID, "GET", targetURL, "", v2Secret)
	otherKey := delivered(valid, executionID)
	otherKey.Set("Idempotency-Key", otherID)
	repeated := delivered(valid, executionID)
	repeated.Add("X-Kairos-Signature-V2", valid)
	cases := []struct {
		name   string
		header http.Header
		method string
		url    string
		body   string
		secret string
		now    time.Time
		want   bool
	}{
		{"valid", delivered(valid, executionID), "POST", targetURL, body, v2Secret, at.Add(time.Second), true},
		{"valid GET", delivered(getValid, executionID), "GET", targetURL, "", v2Secret, at, true},
		{"another execution id", delivered(valid, otherID), "POST", targetURL, body, v2Secret, at, false},
		{"another URL", delivered(valid, executionID), "POST", "https://hooks.example.com/kairos?tenant=b", body, v2Secret, at, false},
		{"another method", delivered(valid, executionID), "PUT", targetURL, body, v2Secret, at, false},
		{"a GET's header on a GET to another URL", delivered(getValid, executionID), "GET", "https://hooks.example.com/admin", "", v2Secret, at, false},
		{"an Idempotency-Key other than the execution id", otherKey, "POST", targetURL, body, v2Secret, at, false},
		{"a repeated signature header", repeated, "POST", targetURL, body, v2Secret, at, false},
		{"another body", delivered(valid, executionID), "POST", targetURL, body + " ", v2Secret, at, false},
		{"another secret", delivered(valid, executionID), "POST", targetURL, body, "other", at, false},
		{"stale", delivered(valid, executionID), "POST", targetURL, body, v2Secret, at.Add(301 * time.Second), false},
		{"no execution id", http.Header{"X-Kairos-Signature-V2": {valid}}, "POST", targetURL, body, v2Secret, at, false},
		{"no signature", http.Header{"X-Kairos-Execution-Id": {executionID}}, "POST", targetURL, body, v2Secret, at, false},
		{"a v1 header", delivered(fmt.Sprintf("t=%d,v1=%s", at.Unix(), valid[len(valid)-64:]), executionID), "POST", targetURL, body, v2Secret, at, false},
	}
	for _, tc := range cases {
		if got := kairos.VerifyWebhookV2(tc.header, tc.method, tc.url, []byte(tc.body), tc.secret, 0, tc.now); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

// The replays v2 refuses still verify with v1: old receivers keep working during the transition,
// and stay replayable until they move.
func TestVerifyWebhookV1AcceptsWhatV2Refuses(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := []byte(`{"executionId":"e1"}`)
	mac := hmac.New(sha256.New, []byte(v2Secret))
	fmt.Fprintf(mac, "%d.%s", at.Unix(), body)
	v1 := fmt.Sprintf("t=%d,v1=%s", at.Unix(), hex.EncodeToString(mac.Sum(nil)))
	replay := delivered(signV2(at.Unix(), executionID, "POST", targetURL, string(body), v2Secret), otherID)
	if !kairos.VerifyWebhook(body, v1, v2Secret, 0, at) {
		t.Error("v1 does not verify")
	}
	if kairos.VerifyWebhookV2(replay, "POST", targetURL, body, v2Secret, 0, at) {
		t.Error("v2 verifies a replay under another execution id")
	}
}

// During a secret rotation's grace Kairos sends one v2 per secret, the newest first, after one timestamp.
func TestVerifyWebhookV2Secrets(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := `{"executionId":"e1"}`
	newSig := signV2(at.Unix(), executionID, "POST", targetURL, body, "new-secret")
	oldSig := signV2(at.Unix(), executionID, "POST", targetURL, body, "old-secret")
	both := newSig + ",v2=" + oldSig[len(oldSig)-64:]
	tampered := both[:len(both)-1] + map[bool]string{true: "0", false: "1"}[both[len(both)-1] != '0']
	cases := []struct {
		name      string
		signature string
		secrets   []string
		now       time.Time
		want      bool
	}{
		{"both signatures, both secrets", both, []string{"new-secret", "old-secret"}, at, true},
		{"both signatures, the new secret only", both, []string{"new-secret"}, at, true},
		{"both signatures, the old secret only", both, []string{"old-secret"}, at, true},
		{"the old signature alone, both secrets", oldSig, []string{"new-secret", "old-secret"}, at, true},
		{"both signatures, neither secret", both, []string{"third", "fourth"}, at, false},
		{"no secret", both, nil, at, false},
		{"the old signature tampered with, the old secret", tampered, []string{"old-secret"}, at, false},
		{"the old signature tampered with, the new secret", tampered, []string{"new-secret"}, at, true},
		{"a timestamp 301 s old", both, []string{"new-secret"}, at.Add(301 * time.Second), false},
		{"a timestamp 301 s ahead", both, []string{"new-secret"}, at.Add(-301 * time.Second), false},
		{"a timestamp 300 s ahead", both, []string{"new-secret"}, at.Add(-300 * time.Second), true},
		{"a signature list without its timestamp", both[strings.Index(both, ",")+1:], []string{"new-secret"}, at, false},
	}
	for _, tc := range cases {
		if got := kairos.VerifyWebhookV2Secrets(delivered(tc.signature, executionID), "POST", targetURL, []byte(body), tc.secrets, 0, tc.now); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
	// One secret: VerifyWebhookV2 reads the header with two signatures too.
	if !kairos.VerifyWebhookV2(delivered(both, executionID), "POST", targetURL, []byte(body), "old-secret", 0, at) {
		t.Error("VerifyWebhookV2 refuses a header with two signatures")
	}
	// The replay window is settable.
	if !kairos.VerifyWebhookV2Secrets(delivered(both, executionID), "POST", targetURL, []byte(body), []string{"new-secret"}, 10*time.Minute, at.Add(9*time.Minute)) {
		t.Error("a 10-minute window refuses a 9-minute-old timestamp")
	}
}

func TestVerifyWebhookV1ReadsTwoSignatures(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := []byte(`{"executionId":"e1"}`)
	sign := func(secret string) string {
		mac := hmac.New(sha256.New, []byte(secret))
		fmt.Fprintf(mac, "%d.%s", at.Unix(), body)
		return hex.EncodeToString(mac.Sum(nil))
	}
	header := fmt.Sprintf("t=%d,v1=%s,v1=%s", at.Unix(), sign("new-secret"), sign("old-secret"))
	if !kairos.VerifyWebhook(body, header, "old-secret", 0, at) || !kairos.VerifyWebhook(body, header, "new-secret", 0, at) {
		t.Error("v1 does not verify a header with two signatures with either secret")
	}
	if kairos.VerifyWebhook(body, header, "third", 0, at) {
		t.Error("v1 verifies with a secret that signed neither")
	}
}
