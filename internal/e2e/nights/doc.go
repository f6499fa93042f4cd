// Package nights holds end-to-end tests over several nights: runs of
// the CLI against a sandbox whose clock moves on, which must report each
// night's ground truth and the same findings whether pulled economically
// or in full. It holds tests only.
package nights
