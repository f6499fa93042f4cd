package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/reconcile/reconcile/internal/safetext"
)

// maxWebhookAnswer bounds what is read of a webhook's answer (shown in the
// error of a refused delivery).
const maxWebhookAnswer = 4 << 10

// webhookError is a webhook's non-2xx answer.
type webhookError struct {
	status int
	body   string
}

func (e *webhookError) Error() string {
	return fmt.Sprintf("answered %d: %s", e.status, e.body)
}

// postWebhook posts d's JSON to w. Redirects are not followed (the digest
// goes where the operator said, or nowhere); an error names the host only,
// never the URL, which holds the hook's token.
func postWebhook(ctx context.Context, w *Webhook, d Digest, timeout time.Duration) error {
	body, err := json.Marshal(d.payload())
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL.Reveal(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook %s: the URL does not make a request", w.Host)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "reconcile")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // it repeats the URL: keep only its cause
			err = ue.Err
		}
		return fmt.Errorf("webhook %s: %w", w.Host, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxWebhookAnswer))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook %s: %w", w.Host, &webhookError{resp.StatusCode, safetext.Cut(string(answer), 200)})
	}
	return nil
}

// transientWebhook tells whether a webhook failure may pass: the network,
// a 429 or a 5xx; not another 4xx (a revoked hook, a payload refused).
func transientWebhook(err error) bool {
	var we *webhookError
	if errors.As(err, &we) {
		return we.status == http.StatusTooManyRequests || we.status >= 500
	}
	return true
}
