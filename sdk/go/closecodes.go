package kairos

// closeCodes is the error code each WebSocket close code stands for: the extensions.code the
// server gives the same refusal over HTTP. Any other close code is a dropped connection
// (CodeNetworkError), reconnected until the reconnection attempts run out. The TypeScript SDK's
// CLOSE_CODES (sdk/typescript/src/closeCodes.ts) and both READMEs hold the same table;
// `bash scripts/sdk.sh check` (sdk/agreement.test.mjs) fails when they differ.
var closeCodes = map[int]string{
	4400: CodeBadUserInput,        // graphql-ws: a message the protocol does not allow
	4401: CodeUnauthenticated,     // a missing, bad, expired or revoked credential
	4403: CodeForbidden,           // graphql-ws: a connection refused (Kairos refuses with 4401, 4429 or 4500 instead)
	4406: CodeBadUserInput,        // graphql-ws: a subprotocol other than graphql-transport-ws
	4409: CodeBadUserInput,        // graphql-ws: a subscription id already in use
	4429: CodeQuotaExceeded,       // past the credential's or the tenant's socket cap
	4500: CodeInternalServerError, // the credential or the socket caps could not be checked, or a server fault
}

// closeCodeError is the error code of a connection closed with closeCode.
func closeCodeError(closeCode int) string {
	if code, ok := closeCodes[closeCode]; ok {
		return code
	}
	return CodeNetworkError
}
