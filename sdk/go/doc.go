// Package kairos is a typed Go client for the Kairos job scheduler's GraphQL API.
//
// The operation functions and types in generated.go are written by genqlient from the repository's
// schema.graphql and operations/*.graphql (`npm run sdk:generate` at the repository root); the
// rest is a small hand-written layer: [NewClient] with one method per operation, [Error] with the
// server's error code, cursor iteration ([Client.JobsAll], [Client.ExecutionsAll]), the
// executionUpdated subscription over graphql-ws ([Client.WatchExecutions]) and webhook verification
// ([VerifyWebhookV2]; [VerifyWebhook] checks the deprecated v1 signature).
package kairos

//go:generate go tool genqlient genqlient.yaml
