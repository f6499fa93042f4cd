// Package cards holds end-to-end tests that no full card number reaches
// any output of a run, in any disguise, and that no identifier is altered
// by masking. It holds tests only.
package cards
