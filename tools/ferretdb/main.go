// Command ferretdb runs FerretDB 1.24 (embedded) as a MongoDB-wire server, for tests and local runs
// on machines where no mongod can be installed (DESIGN.md, "Test environment"). It wraps the
// embeddable package because FerretDB's own cmd/ferretdb refuses to start when built from the
// module proxy (its version.txt is only generated in FerretDB's repository). Telemetry is off.
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	handler := flag.String("handler", "sqlite", "backend: sqlite or postgresql")
	sqliteURL := flag.String("sqlite-url", "file:data/", "SQLite directory URI (sqlite handler)")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL URL (postgresql handler)")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: *listen},
		Logger:        logger,
		Handler:       *handler,
		SQLiteURL:     *sqliteURL,
		PostgreSQLURL: *pgURL,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Printf("ferretdb 1.24 (%s) listening on %s", *handler, *listen)
	if err := f.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
