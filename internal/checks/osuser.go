package checks

import "os/user"

// OSUser is who runs the process, for the audit of a change (Change.By): the OS account, else
// $USER, else "unknown".
func OSUser(getenv func(string) string) string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if v := getenv("USER"); v != "" {
		return v
	}
	return "unknown"
}
