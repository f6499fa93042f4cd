package shardset

import "testing"

// TestShardSettingsMaskCardNumbers: the settings a manifest records keep
// the base URL without its user information and query, and mask a card
// number in it or in the journal glob, wherever it sits in the path.
func TestShardSettingsMaskCardNumbers(t *testing.T) {
	o := Options{
		OrganizationID: "org",
		BaseURL:        "https://user:secret@api.example/v1/4111-1111-1111-1111/?card=4111111111111111",
		Journal:        "/var/log/4111111111111111/*.ndjson",
	}
	s := o.Settings()
	if want := "https://api.example/v1/411111XXXXXX1111/"; s["base-url"] != want {
		t.Errorf("base-url = %q, want %q", s["base-url"], want)
	}
	if want := "/var/log/411111XXXXXX1111/*.ndjson"; s["journal"] != want {
		t.Errorf("journal = %q, want %q", s["journal"], want)
	}
}
