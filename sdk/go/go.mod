module kairos.local/sdk/go

go 1.24.0

require (
	github.com/Khan/genqlient v0.8.1 // indirect
	github.com/agnivade/levenshtein v1.1.1 // indirect
	github.com/alexflint/go-arg v1.5.1 // indirect
	github.com/alexflint/go-scalar v1.2.0 // indirect
	github.com/bmatcuk/doublestar/v4 v4.6.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/vektah/gqlparser/v2 v2.5.19 // indirect
	golang.org/x/mod v0.30.0 // indirect
	golang.org/x/sync v0.18.0 // indirect
	golang.org/x/tools v0.39.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)

tool github.com/Khan/genqlient
