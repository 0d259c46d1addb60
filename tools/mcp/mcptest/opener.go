package mcptest

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// FollowOpener returns an opener (mcp.Opener) for authorization servers
// that sign in without a user, as test servers and the conformance
// suite's do: it fetches the authorization page and follows its
// redirects, the last of which reaches the client's loopback redirect.
// A page that does not end in a success is an error.
func FollowOpener(client *http.Client) func(ctx context.Context, server, authURL string) error {
	if client == nil {
		client = http.DefaultClient
	}
	return func(ctx context.Context, _, authURL string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("authorization page %s: %s", resp.Request.URL.Redacted(), resp.Status)
		}
		return nil
	}
}
