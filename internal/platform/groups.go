package platform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
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
	// GET /group-management/v1/groups/{id} they are creationDateTime and updatedDateTime.
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
	// Count is the page's groups (the spec's list); read, not trusted.
	Count flexInt `json:"count"`
	// TotalCount is not in the spec's list; a platform that sends it
	// anyway has it checked (tally).
	TotalCount flexInt `json:"totalCount"`
	Embedded   struct {
		Groups []json.RawMessage `json:"groups"`
	} `json:"_embedded"`
	Links pageLinks `json:"_links"`
}

// The group list's paths. No vendor SDK operation covers group management;
// the interface spec's group records link to /group-management/v1/groups/{id}
// and it shows the organization both as the query parameter organizationId
// and as a path segment, so both forms are tried (docs/platform.md, Groups:
// unverified). {organizationId} stands for the organization, escaped.
const (
	// DefaultGroupsPath is the query form, tried first.
	DefaultGroupsPath = "/group-management/v1/groups?organizationId={organizationId}"
	// GroupsPathForm is the path-segment form, tried when the query form
	// answers 404.
	GroupsPathForm = "/group-management/v1/groups/{organizationId}"
	// organizationPlaceholder is what a groups path template names the
	// organization with.
	organizationPlaceholder = "{organizationId}"
)

// maxGroupPages bounds one group listing: an organization has at most 5,000
// groups, so even pages of one group each end within it. A platform whose
// next links never end fails the run instead of looping.
const maxGroupPages = 5001

// CheckGroupsPath checks a group list path template (--groups-path): a path
// relative to the base URL, with an optional query, naming the organization
// with {organizationId}.
func CheckGroupsPath(template string) error {
	switch {
	case !strings.HasPrefix(template, "/") || strings.HasPrefix(template, "//"):
		return fmt.Errorf("groups path %q: want a path starting with a single /, e.g. %s", template, DefaultGroupsPath)
	case !strings.Contains(template, organizationPlaceholder):
		return fmt.Errorf("groups path %q: want %s where the organization goes, e.g. %s", template, organizationPlaceholder, DefaultGroupsPath)
	}
	if _, err := url.Parse(strings.ReplaceAll(template, organizationPlaceholder, "o")); err != nil {
		return fmt.Errorf("groups path %q: %w", template, err)
	}
	return nil
}

// groupsTarget is template with the organization put in: query-escaped
// after a '?', path-escaped before.
func groupsTarget(template, organizationID string) string {
	path, query, hasQuery := strings.Cut(template, "?")
	path = strings.ReplaceAll(path, organizationPlaceholder, url.PathEscape(organizationID))
	if !hasQuery {
		return path
	}
	return path + "?" + strings.ReplaceAll(query, organizationPlaceholder, url.QueryEscape(organizationID))
}

// ErrGroupsUnavailable is wrapped by a *GroupsUnavailableError.
var ErrGroupsUnavailable = errors.New("group management is not available to this key")

// GroupsUnavailableError is a group listing the platform refused: 404 at
// every path tried, 401, 403, or an answer saying the product is not
// enabled. It names each request tried and the platform's answer, so that
// the operator sees what was asked and can choose another way (a path, or
// the members named directly).
type GroupsUnavailableError struct {
	OrganizationID string
	Tried          []GroupsAttempt
}

// GroupsAttempt is one request of a refused group listing.
type GroupsAttempt struct {
	Target string // what was called, with its query
	Err    error  // the platform's answer (*APIError)
}

func (e *GroupsUnavailableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (organization %s): ", ErrGroupsUnavailable, e.OrganizationID)
	for i, a := range e.Tried {
		if i > 0 {
			b.WriteString("; then ")
		}
		fmt.Fprintf(&b, "GET %s answered ", a.Target)
		var ae *APIError
		if errors.As(a.Err, &ae) {
			// The error's own text without its repeated method and path.
			text := ae.Error()
			if ae.Method != "" || ae.Path != "" {
				text = strings.TrimPrefix(text, strings.TrimSpace(ae.Method+" "+ae.Path)+": ")
			}
			b.WriteString(text)
		} else {
			b.WriteString(a.Err.Error())
		}
	}
	return b.String()
}

func (e *GroupsUnavailableError) Unwrap() error { return ErrGroupsUnavailable }

// groupsRefused reports whether err is the platform refusing group
// management itself (not a fault worth retrying, nor a bad page): 401, 403,
// 404, or a 4xx whose message says the product is not enabled.
func groupsRefused(err error) bool {
	if errors.Is(err, ErrResponseMLE) {
		return false // the platform wants encrypted answers: its own message says what to do
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.HTTPStatus {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return ae.HTTPStatus >= 400 && ae.HTTPStatus < 500 &&
		strings.Contains(strings.ToLower(ae.Message+" "+ae.Reason), "not enabled")
}

// Groups lists every group of organizationID at the default paths
// (GroupsAt with template "").
func (m *Merchant) Groups(ctx context.Context, organizationID string) iter.Seq2[Group, error] {
	return m.GroupsAt(ctx, organizationID, "")
}

// GroupsAt lists every group of organizationID. The first page is GET
// template with the organization put in; template "" tries
// DefaultGroupsPath and, when that answers 404, GroupsPathForm. Further
// pages are only those the platform links (_links.next.href): the spec's
// list documents no paging, so none is invented. The listing ends with the
// first page that links no next page or brings no group not seen before,
// and fails past maxGroupPages pages or at a next link already fetched
// (a loop). A group listed twice is yielded once; when pages carry a
// totalCount, fewer distinct groups end the listing with an error wrapping
// ErrShortfall (tally). A first page the platform refuses (groupsRefused)
// ends it with a *GroupsUnavailableError naming every path tried.
func (m *Merchant) GroupsAt(ctx context.Context, organizationID, template string) iter.Seq2[Group, error] {
	return func(yield func(Group, error) bool) {
		templates := []string{template}
		if template == "" {
			templates = []string{DefaultGroupsPath, GroupsPathForm}
		}
		var (
			body    []byte
			target  string
			err     error
			refused = &GroupsUnavailableError{OrganizationID: organizationID}
		)
		for i, t := range templates {
			target = groupsTarget(t, organizationID)
			if body, err = m.send(ctx, "GET", target, nil, true, groupsPageLimit); err == nil {
				break
			}
			if !groupsRefused(err) {
				yield(Group{}, fmt.Errorf("list groups of organization %s (%s): %w", organizationID, target, err))
				return
			}
			refused.Tried = append(refused.Tried, GroupsAttempt{Target: target, Err: err})
			if !IsStatus(err, http.StatusNotFound) || i == len(templates)-1 {
				yield(Group{}, refused)
				return
			}
		}
		seen := map[string]bool{}
		var count tally
		for pages := 1; ; pages++ {
			seen[target] = true
			what := fmt.Sprintf("list groups of organization %s (%s)", organizationID, target)
			page, err := decodePage[groupPage]("group list", body)
			if err != nil {
				yield(Group{}, fmt.Errorf("%s: %w", what, err))
				return
			}
			count.page(int(page.TotalCount))
			fresh := 0
			for _, raw := range page.Embedded.Groups {
				g, err := decodeGroup(raw)
				if err != nil {
					yield(Group{}, fmt.Errorf("%s: %w", what, err))
					return
				}
				if !count.first(g.ID) {
					continue
				}
				fresh++
				if !yield(g, nil) {
					return
				}
			}
			next := page.Links.next()
			if next == "" || fresh == 0 {
				if err := count.shortfall("groups"); err != nil {
					yield(Group{}, fmt.Errorf("list groups of organization %s: %w", organizationID, err))
				}
				return
			}
			if pages == maxGroupPages {
				yield(Group{}, fmt.Errorf("%s: %w: still a next page after %d pages", what, ErrInvalidData, maxGroupPages))
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
			what = fmt.Sprintf("list groups of organization %s (%s)", organizationID, target)
			if body, err = m.send(ctx, "GET", target, nil, true, groupsPageLimit); err != nil {
				yield(Group{}, fmt.Errorf("%s: %w", what, err))
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
