package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
)

// Group is one group of merchant IDs of an organization, from the group list
// (_embedded.groups[]).
type Group struct {
	ID          string
	Name        string
	Description string
	Members     []string // merchant (organization) IDs
	// CreatedTime and LastUpdatedTime are metadata.createdTime and
	// metadata.lastUpdatedTime (ISO 8601 UTC); for a group record shaped like
	// GET /groups/{id} they are creationDateTime and updatedDateTime.
	CreatedTime     string
	LastUpdatedTime string
	Raw             json.RawMessage `json:"-"`
}

type groupWire struct {
	ID                      flexString   `json:"id"`
	GroupID                 flexString   `json:"groupId"`
	Name                    flexString   `json:"name"`
	Description             flexString   `json:"description"`
	Members                 []flexString `json:"members"`
	SelectedOrganizationIDs []flexString `json:"selectedOrganizationIds"`
	Metadata                struct {
		CreatedTime     flexString `json:"createdTime"`
		LastUpdatedTime flexString `json:"lastUpdatedTime"`
	} `json:"metadata"`
	CreationDateTime flexString `json:"creationDateTime"`
	UpdatedDateTime  flexString `json:"updatedDateTime"`
}

func decodeGroup(raw json.RawMessage) (Group, error) {
	w, err := decodeRecord[groupWire]("group", raw)
	if err != nil {
		return Group{}, err
	}
	g := Group{
		ID:              string(firstNonEmpty(w.ID, w.GroupID)),
		Name:            string(w.Name),
		Description:     string(w.Description),
		CreatedTime:     string(firstNonEmpty(w.Metadata.CreatedTime, w.CreationDateTime)),
		LastUpdatedTime: string(firstNonEmpty(w.Metadata.LastUpdatedTime, w.UpdatedDateTime)),
		Raw:             raw,
	}
	members := w.Members
	if members == nil {
		members = w.SelectedOrganizationIDs
	}
	g.Members = make([]string, 0, len(members))
	for _, m := range members {
		g.Members = append(g.Members, string(m))
	}
	return g, nil
}

type groupPage struct {
	TotalCount flexInt `json:"totalCount"`
	Embedded   struct {
		Groups []json.RawMessage `json:"groups"`
	} `json:"_embedded"`
	Links pageLinks `json:"_links"`
}

// Groups lists every group of organizationID: GET
// /groups?organizationId=..&offset=0&limit=100, then the _links.next of each
// page until there is none (docs/wire.md). An empty page also ends the
// listing, and a next link seen before is an error rather than a loop. A
// group listed twice is yielded once, and fewer groups than the pages'
// totalCount ends the listing with an error wrapping ErrShortfall (tally):
// a run must not reconcile part of an organization as if it were all.
func (m *Merchant) Groups(ctx context.Context, organizationID string) iter.Seq2[Group, error] {
	return func(yield func(Group, error) bool) {
		target := "/groups?organizationId=" + url.QueryEscape(organizationID) + "&offset=0&limit=100"
		seen := map[string]bool{}
		var count tally
		for {
			seen[target] = true
			what := fmt.Sprintf("list groups of organization %s (%s)", organizationID, target)
			body, err := m.send(ctx, "GET", target, nil, true, groupsPageLimit)
			if err != nil {
				yield(Group{}, fmt.Errorf("%s: %w", what, err))
				return
			}
			page, err := decodePage[groupPage]("group list", body)
			if err != nil {
				yield(Group{}, fmt.Errorf("%s: %w", what, err))
				return
			}
			count.page(int(page.TotalCount))
			for _, raw := range page.Embedded.Groups {
				g, err := decodeGroup(raw)
				if err != nil {
					yield(Group{}, fmt.Errorf("%s: %w", what, err))
					return
				}
				if !count.first(g.ID) {
					continue
				}
				if !yield(g, nil) {
					return
				}
			}
			next := page.Links.next()
			if next == "" || len(page.Embedded.Groups) == 0 {
				if err := count.shortfall("groups"); err != nil {
					yield(Group{}, fmt.Errorf("list groups of organization %s: %w", organizationID, err))
				}
				return
			}
			if target, err = m.c.relativeLink(next); err != nil {
				yield(Group{}, fmt.Errorf("%s: next page: %w", what, err))
				return
			}
			if seen[target] {
				yield(Group{}, fmt.Errorf("%s: %w: next link %s was already fetched", what, ErrInvalidData, target))
				return
			}
		}
	}
}

func firstNonEmpty(v ...flexString) flexString {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
