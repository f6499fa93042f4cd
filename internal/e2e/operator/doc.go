// Package operator holds end-to-end tests of what an operator reads and
// sets: the digest and alarms, metrics (file and Pushgateway), the memory
// log, authentication modes, encrypted responses, doctor, reconcile sql's
// outputs and its read-only guard, secrets and the terminal. It holds
// tests only.
package operator
