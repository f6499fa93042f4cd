// Package cards holds end-to-end tests that no full card number reaches
// any output of a run, in any disguise, and that no identifier is altered
// by masking. Tests only: it has no program code.
package cards
