// Package credentials reads a run's credentials from the files and
// environment variables its settings name: the shared secret or the P12
// key of the --auth mode, and the response MLE key. A secret or a
// password is never taken from a flag's value, so it does not show in
// process listings or shell history; the files are held to
// internal/secretfile's policy. Errors name the flags (and their
// RECONCILE_ variables) the operator gave.
package credentials

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/secretfile"
)

// Settings are a run's credential settings, each the flag of the same
// name (--auth, --key-id, --portfolio-id, --secret-file, --p12-file,
// --p12-password-file, --response-mle-key, --response-mle-password-file,
// --response-mle-kid).
type Settings struct {
	Auth                    string
	KeyID                   string
	PortfolioID             string
	SecretFile              string
	P12File                 string
	P12PasswordFile         string
	ResponseMLEKey          string
	ResponseMLEPasswordFile string
	ResponseMLEKid          string
}

// Load reads the credentials of the --auth mode: the key ID and
// the shared secret (--secret-file, else RECONCILE_SECRET), or the P12 file
// and its password (--p12-password-file, else RECONCILE_P12_PASSWORD). A
// secret or a password is never taken from a flag's value, so it does not
// show in process listings or shell history.
func Load(o Settings, getenv func(string) string) (platform.Credentials, error) {
	mode, err := platform.ParseAuthMode(o.Auth)
	if err != nil {
		return platform.Credentials{}, fmt.Errorf("--auth: %w", err)
	}
	creds := platform.Credentials{Mode: mode, KeyID: o.KeyID, PortfolioID: o.PortfolioID}
	if mode == platform.AuthJWTP12 {
		if creds.P12, err = loadP12(o, getenv); err != nil {
			return platform.Credentials{}, err
		}
		return creds, nil
	}
	if o.P12File != "" || o.P12PasswordFile != "" {
		return platform.Credentials{}, fmt.Errorf("--p12-file and --p12-password-file are for --auth %s, not %s", platform.AuthJWTP12, mode)
	}
	if o.KeyID == "" {
		return platform.Credentials{}, fmt.Errorf("no credentials: --key-id (or RECONCILE_KEY_ID) is required with --base-url and --auth %s", mode)
	}
	var b64 string
	switch {
	case o.SecretFile != "":
		b, err := readFile("secret-file", o.SecretFile, true)
		if err != nil {
			return platform.Credentials{}, err
		}
		b64 = string(b)
	case getenv("RECONCILE_SECRET") != "":
		b64 = getenv("RECONCILE_SECRET")
	default:
		return platform.Credentials{}, errors.New("no credentials: give --secret-file or RECONCILE_SECRET with --base-url")
	}
	if creds.Secret, err = platform.NewSecret(b64); err != nil {
		return platform.Credentials{}, fmt.Errorf("secret: %w", err)
	}
	return creds, nil
}

// loadP12 reads the key and certificate of --auth jwt-p12.
func loadP12(o Settings, getenv func(string) string) (platform.P12Key, error) {
	if o.P12File == "" {
		return platform.P12Key{}, fmt.Errorf("--auth %s needs --p12-file (the PKCS#12 file of the key and its certificate)", platform.AuthJWTP12)
	}
	var password string
	switch {
	case o.P12PasswordFile != "":
		b, err := readFile("p12-password-file", o.P12PasswordFile, true)
		if err != nil {
			return platform.P12Key{}, err
		}
		// A trailing newline is the editor's, not the password's.
		password = strings.TrimRight(string(b), "\r\n")
	case getenv("RECONCILE_P12_PASSWORD") != "":
		password = getenv("RECONCILE_P12_PASSWORD")
	default:
		return platform.P12Key{}, fmt.Errorf("--auth %s needs the P12 password: --p12-password-file or RECONCILE_P12_PASSWORD", platform.AuthJWTP12)
	}
	data, err := readFile("p12-file", o.P12File, false)
	if err != nil {
		return platform.P12Key{}, err
	}
	k, err := platform.ParseP12(data, password)
	if err != nil {
		return platform.P12Key{}, fmt.Errorf("--p12-file: %w", err)
	}
	if exp := k.Certificate().NotAfter; time.Now().After(exp) {
		return platform.P12Key{}, fmt.Errorf("--p12-file: the certificate %s expired on %s", k.KeyID(), exp.UTC().Format(time.DateOnly))
	}
	return k, nil
}

// readFile reads the file named by the setting flagName (given as
// a flag, RECONCILE_<FLAG> or in the config file). With private set it
// refuses, as ssh does for a private key, a file that group or others may
// read, and says what to run. An error never repeats the path of a file
// that could not be opened, only the setting: someone who put the secret
// itself in RECONCILE_SECRET_FILE must not see it printed.
func readFile(flagName, path string, private bool) ([]byte, error) {
	env := "RECONCILE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
	return secretfile.Read("--"+flagName+" ("+env+")", path, private)
}

// LoadResponseMLE reads --response-mle-key: a P12 file (the portal's
// download; its password from --response-mle-password-file or
// RECONCILE_RESPONSE_MLE_PASSWORD, never a flag's value) or a PEM file of
// the private key and its certificate. The zero key when none is given.
// Only the JWT modes can ask for encrypted answers.
func LoadResponseMLE(o Settings, getenv func(string) string, mode platform.AuthMode) (platform.ResponseMLEKey, error) {
	if o.ResponseMLEKey == "" {
		if o.ResponseMLEPasswordFile != "" || o.ResponseMLEKid != "" {
			return platform.ResponseMLEKey{}, fmt.Errorf("--response-mle-password-file and --response-mle-kid need --response-mle-key")
		}
		return platform.ResponseMLEKey{}, nil
	}
	if m, _ := platform.ParseAuthMode(string(mode)); m == platform.AuthHTTPSignature {
		return platform.ResponseMLEKey{}, fmt.Errorf("--response-mle-key needs --auth %s or %s: the HTTP signature cannot ask for encrypted responses (the JWT's v-c-response-mle-kid claim does); --auth jwt takes the same --key-id and secret", platform.AuthJWT, platform.AuthJWTP12)
	}
	data, err := readFile("response-mle-key", o.ResponseMLEKey, true)
	if err != nil {
		return platform.ResponseMLEKey{}, err
	}
	var password string
	switch {
	case o.ResponseMLEPasswordFile != "":
		b, err := readFile("response-mle-password-file", o.ResponseMLEPasswordFile, true)
		if err != nil {
			return platform.ResponseMLEKey{}, err
		}
		password = strings.TrimRight(string(b), "\r\n") // the editor's newline
	default:
		password = getenv("RECONCILE_RESPONSE_MLE_PASSWORD")
	}
	isPEM := strings.Contains(string(data), "-----BEGIN ")
	if !isPEM && password == "" {
		return platform.ResponseMLEKey{}, fmt.Errorf("--response-mle-key is a P12 file: its password is needed: --response-mle-password-file or RECONCILE_RESPONSE_MLE_PASSWORD")
	}
	k, err := platform.ParseResponseMLEKey(data, password, o.ResponseMLEKid)
	if err != nil {
		return platform.ResponseMLEKey{}, fmt.Errorf("--response-mle-key %s: %w", filepath.Base(o.ResponseMLEKey), err)
	}
	return k, nil
}

// ResponseMLEOption is platform.WithResponseMLE for a key given, else no
// option.
func ResponseMLEOption(k platform.ResponseMLEKey) platform.Option {
	if k.IsZero() {
		return nil
	}
	return platform.WithResponseMLE(k)
}

// credentialWords mark a run flag as a credential setting: one of the
// hyphen-separated words of its name is among them (key-id, secret-file,
// portfolio-id: the key's owner, the signing identity).
// A rule on names rather than a list of flags, so that a credential setting
// added later (a certificate, a password file) counts without anyone
// remembering this check.
var credentialWords = []string{"key", "secret", "portfolio", "p12", "cert", "certificate", "password", "token"}

// credentialEnv are credentials read from the environment that no flag
// names (a flag's own RECONCILE_<FLAG> counts through the flag).
var credentialEnv = []string{"RECONCILE_SECRET", "RECONCILE_P12_PASSWORD", "RECONCILE_RESPONSE_MLE_PASSWORD"}

// Given names the credential settings given on the command line, in the
// environment or in the config file (fs once its layers are applied,
// cliflags.ApplyLayers): a run with credentials but no base URL is
// refused rather than reconciling the embedded sandbox.
func Given(fs *flag.FlagSet, getenv func(string) string) []string {
	var given []string
	fs.Visit(func(f *flag.Flag) { // the flags set, by any layer (cliflags.ApplyLayers sets them)
		for _, w := range strings.Split(f.Name, "-") {
			if slices.Contains(credentialWords, w) {
				given = append(given, "--"+f.Name)
				return
			}
		}
	})
	for _, name := range credentialEnv {
		if getenv(name) != "" {
			given = append(given, name)
		}
	}
	return given
}
