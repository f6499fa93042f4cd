package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sdkdir"
	"github.com/reconcile/reconcile/internal/testcert"
)

var updateSDKFixtures = flag.Bool("update-sdk-fixtures", false,
	"write the SDK's requests and the sandbox's answers of the http_signature run to ../platform/testdata/sdk")

// sdkDir holds the contract script and its pinned dependencies.
var sdkDir = filepath.Join("testdata", "sdk")

// sdkModes are the SDK's authentication modes, as the script names them.
var sdkModes = []string{"http_signature", "jwt", "jwt_p12"}

// sdkResult is one line of the script's output.
type sdkResult struct {
	Mode    string   `json:"mode"`
	Op      string   `json:"op"`
	OK      bool     `json:"ok"`
	Status  int      `json:"status"`
	Missing []string `json:"missing"`
	Error   string   `json:"error"`
	Dropped []string `json:"dropped"`
}

// TestSDKContract drives the sandbox, over real HTTP on loopback, with the
// platform vendor's own Node.js SDK (testdata/sdk/contract.js): every
// operation of the areas the SDK covers and the sandbox serves, in each of
// the three authentication modes (HTTP signature, JWT with the shared
// secret, JWT with a P12 certificate this test makes), each answer
// deserialised into the SDK's model with the fields the spec names.
func TestSDKContract(t *testing.T) {
	node, npm := sdkTools(t)
	npmCI(t, npm)

	cert := testcert.New(t, DefaultOrganizationID, "SBX-SDK-P12")
	trusted, err := NewCertificate(cert.Cert)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Seed: 7, BusinessDate: testDate, Certificates: []Certificate{trusted}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &sdkRecorder{next: s.Handler(), clock: s.Clock}
	hs := httptest.NewServer(rec)
	t.Cleanup(hs.Close)

	work := t.TempDir()
	const password = "sdk p12 password"
	p12 := filepath.Join(work, "go.p12")
	if err := os.WriteFile(p12, cert.P12(t, pkcs12.Modern, password), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "contract.js")
	cmd.Dir = sdkDir
	cmd.Env = append(append(os.Environ(), reportingEnv(s)...), "SANDBOX_URL="+hs.URL, "MERCHANT_ID="+memberID(1), "PORTFOLIO_ID="+DefaultOrganizationID,
		"KEY_ID="+DefaultKeyID, "SECRET="+DefaultSecret, "P12_FILE="+p12, "P12_PASSWORD="+password,
		"MODES="+strings.Join(sdkModes, ","), "WORK_DIR="+work)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node contract.js: %v\n%s", err, stderr.String())
	}

	var results []sdkResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r sdkResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("script output %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	byMode := map[string][]string{}
	dropped := map[string]bool{}
	for _, r := range results {
		byMode[r.Mode] = append(byMode[r.Mode], r.Op)
		if !r.OK {
			t.Errorf("%s %s: status %d, missing %v, error %s", r.Mode, r.Op, r.Status, r.Missing, r.Error)
		}
		for _, d := range r.Dropped {
			dropped[r.Op+": "+d] = true
		}
	}
	ops := byMode[sdkModes[0]]
	if len(ops) < 40 {
		t.Fatalf("the script ran %d operations in %s mode: %v\nstderr:\n%s", len(ops), sdkModes[0], ops, stderr.String())
	}
	// The Reporting API's reports the run reads (disputes.go) are driven by
	// the SDK's own API classes.
	for _, op := range []string{"getInterchangeClearingLevelDetails", "getChargebackDetails", "getRetrievalDetails",
		"getInterchangeClearingLevelDetails(organization)", "getChargebackDetails(organization)", "getRetrievalDetails(organization)"} {
		if !slices.Contains(ops, op) {
			t.Errorf("the script did not run %s", op)
		}
	}
	for _, m := range sdkModes[1:] {
		if strings.Join(byMode[m], "|") != strings.Join(ops, "|") {
			t.Errorf("mode %s ran %v, want the operations of %s: %v", m, byMode[m], sdkModes[0], ops)
		}
	}
	t.Logf("%d operations in each of %d modes; what the SDK's models have no field for:\n%s",
		len(ops), len(sdkModes), strings.Join(slices.Sorted(maps.Keys(dropped)), "\n"))

	// Each mode authenticated as the SDK does: the recorded requests of a
	// mode are the operations of that mode, in order.
	calls := rec.calls()
	if len(calls) != len(results) {
		t.Fatalf("%d requests recorded, %d operations reported", len(calls), len(results))
	}
	wantAuth := map[string]string{"http_signature": "signature", "jwt": "HS256", "jwt_p12": "RS256"}
	for i, c := range calls {
		if r := results[i]; c.auth != wantAuth[r.Mode] {
			t.Errorf("%s %s (%s %s): authenticated by %s, want %s", r.Mode, r.Op, c.Method, c.Path, c.auth, wantAuth[r.Mode])
		}
	}
	if *updateSDKFixtures {
		writeSDKFixtures(t, calls, results)
	}
}

// sdkTools finds node and npm, or skips the test saying how to install
// them (and fails when RECONCILE_REQUIRE_SDK_TEST is set, as CI sets it).
func sdkTools(t *testing.T) (node, npm string) { return sdkdir.Tools(t) }

// npmCI installs the pinned SDK with npm ci when node_modules is missing
// or was installed from another package-lock.json; the field guard of
// package platform shares the installation (internal/sdkdir).
func npmCI(t *testing.T, npm string) { sdkdir.Install(t, npm, sdkDir) }

// sdkCall is one request the SDK sent and the sandbox's answer, in the
// shape of a merchant's journal line (docs/journal.md), which is what a real
// integration built on the SDK would log.
type sdkCall struct {
	Time       string          `json:"time"`
	MerchantID string          `json:"merchantId"`
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	Request    json.RawMessage `json:"request,omitempty"`
	Status     int             `json:"status"`
	Response   json.RawMessage `json:"response,omitempty"`
	auth       string          // signature, HS256 or RS256
	mleKid     string          // the JWT's v-c-response-mle-kid claim
}

// sdkRecorder passes requests to the sandbox and records them, except
// the provider's checkout page (no platform credentials).
type sdkRecorder struct {
	next  http.Handler
	clock func() time.Time
	mu    sync.Mutex
	log   []sdkCall
}

func (rec *sdkRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, checkoutPath) {
		rec.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rr := httptest.NewRecorder()
	rec.next.ServeHTTP(rr, r)
	c := sdkCall{Time: rec.clock().Format(time.RFC3339), MerchantID: r.Header.Get("v-c-merchant-id"), Method: r.Method,
		Path: r.URL.RequestURI(), Status: rr.Code, auth: "signature"}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		var hdr struct{ Alg string }
		_ = decodeSegment(strings.Split(tok, ".")[0], &hdr)
		var claims struct {
			MerchantID string `json:"v-c-merchant-id"`
			MLEKid     string `json:"v-c-response-mle-kid"`
		}
		if parts := strings.Split(tok, "."); len(parts) == 3 {
			_ = decodeSegment(parts[1], &claims)
		}
		c.auth, c.MerchantID, c.mleKid = hdr.Alg, claims.MerchantID, claims.MLEKid
	}
	if json.Valid(body) && len(body) > 0 {
		c.Request = body
	}
	if b := rr.Body.Bytes(); json.Valid(b) && len(b) > 0 {
		c.Response = append(json.RawMessage{}, b...)
	}
	rec.mu.Lock()
	rec.log = append(rec.log, c)
	rec.mu.Unlock()
	for k, v := range rr.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rr.Code)
	_, _ = w.Write(rr.Body.Bytes())
}

func (rec *sdkRecorder) calls() []sdkCall {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]sdkCall(nil), rec.log...)
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

// writeSDKFixtures writes the calls of the first mode, one file per
// operation, for the decoders and the journal inspection to be tested on.
func writeSDKFixtures(t *testing.T, calls []sdkCall, results []sdkResult) {
	t.Helper()
	dir := filepath.Join("..", "platform", "testdata", "sdk")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, r := range results {
		if r.Mode != sdkModes[0] {
			continue
		}
		n++
		b, err := json.MarshalIndent(calls[i], "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%02d-%s.json", n, strings.Trim(nonWord.ReplaceAllString(r.Op, "-"), "-"))
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %d fixtures to %s", n, dir)
}

// TestSDKContractResponseMLE runs the contract with response message-level
// encryption on, as the platform will require it: the sandbox encrypts
// every answer for the key the JWT's v-c-response-mle-kid claim names, and
// the vendor's SDK (enableResponseMleGlobally) decrypts each into its
// model: with a PEM key and the kid given (jwt_mle), and with a P12 as the
// portal makes it, whose kid the SDK extracts itself (jwt_p12_mle). The
// product's key reader finds the same kid in that P12 as the SDK put in
// its claim, and decrypts every answer the sandbox encrypted for it.
func TestSDKContractResponseMLE(t *testing.T) {
	node, npm := sdkTools(t)
	npmCI(t, npm)

	signing := testcert.New(t, DefaultOrganizationID, "SBX-SDK-P12")
	trusted, err := NewCertificate(signing.Cert)
	if err != nil {
		t.Fatal(err)
	}
	// Two response keys: the PEM one (kid given) and the portal's P12,
	// which also holds the platform's CA certificate (CN
	// CyberSource_SJC_US, how the SDK tells the portal's P12 files).
	pemKey := testcert.New(t, DefaultOrganizationID, "SBX-MLE-PEM")
	p12Key := testcert.New(t, DefaultOrganizationID, "SBX-MLE-P12")
	ca := testcert.New(t, "CyberSource_SJC_US", "CA-1")
	var mleCerts []Certificate
	for _, c := range []testcert.Cert{pemKey, p12Key} {
		mc, err := NewCertificate(c.Cert)
		if err != nil {
			t.Fatal(err)
		}
		mleCerts = append(mleCerts, mc)
	}
	s, err := New(Config{Seed: 7, BusinessDate: testDate, Certificates: []Certificate{trusted}, ResponseMLE: mleCerts})
	if err != nil {
		t.Fatal(err)
	}
	rec := &sdkRecorder{next: s.Handler(), clock: s.Clock}
	hs := httptest.NewServer(rec)
	t.Cleanup(hs.Close)

	work := t.TempDir()
	const password, mlePassword = "sdk p12 password", "portal mle password"
	write := func(name string, b []byte) string {
		p := filepath.Join(work, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p12 := write("go.p12", signing.P12(t, pkcs12.Modern, password))
	mlePEM := write("response-mle.pem", pemKey.KeyPEM(t))
	mleP12Bytes := p12Key.P12(t, pkcs12.LegacyDES, mlePassword, ca.Cert)
	mleP12 := write("response-mle.p12", mleP12Bytes)
	// The SDK caches the response key by merchant ID alone and reloads it
	// only when the file's mtime differs from the cached one
	// (Cache.js getMleResponsePrivateKeyFromFilePath): two key files written
	// within the same millisecond would make the second mode decrypt with
	// the first mode's key. Their times are set apart.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(mleP12, old, old); err != nil {
		t.Fatal(err)
	}

	modes := []string{"jwt_mle", "jwt_p12_mle"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "contract.js")
	cmd.Dir = sdkDir
	cmd.Env = append(append(os.Environ(), reportingEnv(s)...), "SANDBOX_URL="+hs.URL, "MERCHANT_ID="+memberID(1), "PORTFOLIO_ID="+DefaultOrganizationID,
		"KEY_ID="+DefaultKeyID, "SECRET="+DefaultSecret, "P12_FILE="+p12, "P12_PASSWORD="+password,
		"RESPONSE_MLE_PEM="+mlePEM, "RESPONSE_MLE_KID=SBX-MLE-PEM",
		"RESPONSE_MLE_P12="+mleP12, "RESPONSE_MLE_P12_PASSWORD="+mlePassword,
		"MODES="+strings.Join(modes, ","), "WORK_DIR="+work)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node contract.js: %v\n%s", err, stderr.String())
	}
	var results []sdkResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r sdkResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("script output %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	byMode := map[string]int{}
	for _, r := range results {
		byMode[r.Mode]++
		if !r.OK {
			t.Errorf("%s %s: status %d, missing %v, error %s", r.Mode, r.Op, r.Status, r.Missing, r.Error)
		}
	}
	for _, m := range modes {
		if byMode[m] < 40 {
			t.Fatalf("the script ran %d operations in %s mode\nstderr:\n%s", byMode[m], m, stderr.String())
		}
	}

	// Every answer went out encrypted, for the kid of the mode's key.
	calls := rec.calls()
	if len(calls) != len(results) {
		t.Fatalf("%d requests recorded, %d operations reported", len(calls), len(results))
	}
	wantKid := map[string]string{"jwt_mle": "SBX-MLE-PEM", "jwt_p12_mle": "SBX-MLE-P12"}
	for i, c := range calls {
		r := results[i]
		if c.mleKid != wantKid[r.Mode] {
			t.Errorf("%s %s: v-c-response-mle-kid %q, want %q", r.Mode, r.Op, c.mleKid, wantKid[r.Mode])
		}
		var env map[string]string
		if err := json.Unmarshal(c.Response, &env); err != nil || len(env) != 1 || env["encryptedResponse"] == "" {
			t.Errorf("%s %s: the answer was not encrypted: %.120s", r.Mode, r.Op, c.Response)
		}
	}

	// The product: the kid it reads from the portal's P12 is the one the
	// SDK claimed, and it decrypts every answer encrypted for the SDK's
	// claims.
	keys := map[string]platform.ResponseMLEKey{}
	if keys["jwt_p12_mle"], err = platform.ParseResponseMLEKey(mleP12Bytes, mlePassword, ""); err != nil {
		t.Fatal(err)
	}
	if keys["jwt_mle"], err = platform.ParseResponseMLEKey(pemKey.KeyPEM(t), "", "SBX-MLE-PEM"); err != nil {
		t.Fatal(err)
	}
	if got := keys["jwt_p12_mle"].KeyID(); got != wantKid["jwt_p12_mle"] {
		t.Errorf("the product reads kid %q from the portal's P12, the SDK %q", got, wantKid["jwt_p12_mle"])
	}
	for i, c := range calls {
		plain, err := keys[results[i].Mode].Open(c.Response)
		if err != nil || !json.Valid(plain) || bytes.Contains(plain, []byte("encryptedResponse")) {
			t.Errorf("%s %s: the product cannot read the answer: %v", results[i].Mode, results[i].Op, err)
		}
	}
}
