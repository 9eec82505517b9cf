package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// Opening by URL (R16): importing this package registers the schemes
// "postgres" and "postgresql" with ttldb.Open, so that a program moves a
// collection from memory or a directory to PostgreSQL by changing its URL:
//
//	import _ "github.com/ttldb/ttldb/postgres"
//
//	c, err := ttldb.Open(ctx, "postgres://app@db.internal/app?search_path=sessions", &ttldb.Options{
//		Name: "sessions", PartitionKeyPath: "/tenant"})
//
// The URL is pgx's connection string (pgxpool.ParseConfig): host, user,
// database, sslmode, pool_max_conns and the other pool settings, and any
// other query parameter as a run-time parameter of the connections, such
// as search_path, the PostgreSQL schema that holds the collection.

func init() {
	ttldb.Register("postgres", openURL)
	ttldb.Register("postgresql", openURL)
}

// openURL is the ttldb.Opener of PostgreSQL's URLs: the collection is
// Options.Name; Options.PartitionKeyPath makes it when it is missing, and
// may be left empty to open an existing one with its stored path. The
// collection owns the pool it makes, and its Close closes the pool.
func openURL(ctx context.Context, url string, opts *ttldb.Options) (*ttldb.Collection, error) {
	e, err := OpenURL(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	c, err := ttldb.FromEngine(e)
	if err != nil {
		_ = e.Close()
		return nil, err
	}
	return c, nil
}

// OpenURL opens, on a pool of its own that it makes from url, the
// collection that opts.Name names, as [Open] does, and returns the engine,
// whose Close closes the pool once the engine has stopped. ttldb.Open calls
// it for the schemes "postgres" and "postgresql"; [ttldb.FromEngine] makes
// a collection of the engine. url is pgx's connection string (a URL or
// key=value pairs; pgxpool.ParseConfig); its query parameters that are not
// pgx's settings are the connections' run-time parameters, search_path
// among them. opts.PartitionKeyPath is the path of a collection to make,
// and may be left empty to open an existing one with its stored path.
// Making the pool connects to nothing: Open's first statement does.
//
// Errors: [engine.ErrInvalidOption] for a nil ctx, a url that pgx cannot
// parse (pgx's message, which masks the password; url_test.go checks it), opts nil or without Name, and
// a missing collection without a partition-key path; then those of
// [Open]. A refused open closes the pool it made.
func OpenURL(ctx context.Context, url string, opts *ttldb.Options) (*Engine, error) {
	if ctx == nil || ctx.Err() != nil {
		return nil, engine.ContextError(ctx, "Open")
	}
	if opts == nil || opts.Name == "" {
		return nil, fmt.Errorf("%w: Open of a PostgreSQL URL without Options.Name: a server holds many collections; name the one to open", engine.ErrInvalidOption)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("%w: Open of collection %q: the URL is not a PostgreSQL connection string: %v", engine.ErrInvalidOption, opts.Name, err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: Open of collection %q: %v", engine.ErrInvalidOption, opts.Name, err)
	}
	e, err := Open(ctx, pool, opts.Name, opts.PartitionKeyPath, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	e.ownPool = true
	return e, nil
}
