package sandbox

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Group management (spec: Group, Group management endpoints,
// Authentication 3). Groups live in the Server under groupMu; the ground
// truth keeps the groups as generated (Server.initial).

// groupsPath is where group management lives: the versioned path the
// spec's group records link to.
const groupsPath = "/group-management/v1/groups"

// groupsPrefix is groupsPath with the slash a group id follows.
const groupsPrefix = groupsPath + "/"

// unversionedGroups answers the unversioned /groups paths with 404 in the
// vendor's not-available shape: no vendor source shows them, and a client
// that calls them must fail here as on the platform.
func (s *Server) unversionedGroups(x *exchange, _ noBody) answer {
	return notAvailable("notFound", "The requested resource "+x.r.URL.Path+" does not exist")
}

// groupTypeCustom is the one group type observed; other values are not
// shown, so the sandbox accepts this one only.
const groupTypeCustom = "CUSTOM"

// group is a group of MIDs. Its fields are guarded by Server.groupMu.
type group struct {
	id, name, description, groupType string
	owner                            string // the organization with administrative control
	members                          []string
	created, updated                 time.Time
}

// buildGroups spreads the members round-robin over the groups; about one
// member in ten (those whose index ends in 3, so at least one from 4
// members on) also belongs to the next group.
func buildGroups(cfg Config) []*group {
	n := cfg.Scale.Groups
	gs := make([]*group, n)
	for g := range gs {
		created := cfg.BusinessDate.AddDate(0, 0, -(500 + 17*g)).Add(9*time.Hour + time.Duration(g)*time.Minute)
		gs[g] = &group{id: strconv.Itoa(1001 + g), name: fmt.Sprintf("Region %d", g+1), owner: cfg.OrganizationID,
			description: fmt.Sprintf("Merchant accounts of region %d", g+1), groupType: groupTypeCustom,
			created: created, updated: created.AddDate(0, 0, 30)}
	}
	for i := 0; i < cfg.Scale.Members; i++ {
		mid := memberID(i)
		gs[i%n].members = append(gs[i%n].members, mid)
		if n > 1 && i%10 == 3 {
			second := (i%n + 1) % n
			gs[second].members = append(gs[second].members, mid)
		}
	}
	return gs
}

type groupItem struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Members     []string        `json:"members"`
	Metadata    groupMeta       `json:"metadata"`
	Links       map[string]link `json:"_links"`
}

type groupMeta struct {
	CreatedTime     string `json:"createdTime"`
	LastUpdatedTime string `json:"lastUpdatedTime"`
}

type groupRecord struct {
	GroupID                   string   `json:"groupId"`
	OrganizationID            string   `json:"organizationId"`
	Name                      string   `json:"name"`
	Description               string   `json:"description"`
	CreationDateTime          string   `json:"creationDateTime"`
	UpdatedDateTime           string   `json:"updatedDateTime"`
	Type                      string   `json:"type"`
	SelectedOrganizationCount string   `json:"selectedOrganizationCount"`
	SelectedOrganizationIDs   []string `json:"selectedOrganizationIds"`
}

// findGroup returns the live group id, or nil.
func (s *Server) findGroup(id string) *group {
	s.groupMu.RLock()
	defer s.groupMu.RUnlock()
	return s.findGroupLocked(id)
}

func (s *Server) findGroupLocked(id string) *group {
	for _, g := range s.groups {
		if g.id == id {
			return g
		}
	}
	return nil
}

// record renders g; the caller holds groupMu.
func (g *group) record() groupRecord {
	return groupRecord{GroupID: g.id, OrganizationID: g.owner, Name: g.name, Description: g.description,
		CreationDateTime: g.created.Format(time.DateTime), UpdatedDateTime: g.updated.Format(time.DateTime),
		Type: g.groupType, SelectedOrganizationCount: strconv.Itoa(len(g.members)),
		SelectedOrganizationIDs: append([]string{}, g.members...)}
}

// canSeeOrg reports whether u may list the groups of organization org: a
// portfolio user those of the portfolio and of its merchant account, a
// merchant user its own account's, a transacting user the portfolio's it
// belongs to.
func (s *Server) canSeeOrg(u User, org string) bool {
	switch u.groupAccess() {
	case groupsManage:
		return org == s.cfg.OrganizationID || org == DefaultMerchantAccountID
	case groupsOwn:
		return org == u.Account
	case groupsView:
		return org == s.cfg.OrganizationID
	}
	return false
}

// canManage reports whether u may change group g (caller holds groupMu).
func canManage(u User, g *group) bool {
	switch u.groupAccess() {
	case groupsManage:
		return true
	case groupsOwn:
		return g.owner == u.Account
	}
	return false
}

func (s *Server) listGroups(x *exchange, _ noBody) answer {
	return s.groupList(x, x.r.URL.Query().Get("organizationId"), groupsPath)
}

// getGroupOrList serves both groupsPath/{groupId} and the spec's example
// path form groupsPath/{organizationId}: group ids are numeric and
// organization ids are not, and a group id wins if they ever collide.
func (s *Server) getGroupOrList(x *exchange, _ noBody) answer {
	id := x.r.PathValue("id")
	if g := s.findGroupLocked(id); g != nil {
		mine := canManage(x.user, g) || x.user.groupAccess() == groupsView && g.owner == s.cfg.OrganizationID
		if !mine {
			return x.forbidden("no access to group " + id)
		}
		return reply(http.StatusOK, g.record())
	}
	if id == s.cfg.OrganizationID || id == DefaultMerchantAccountID {
		return s.groupList(x, id, groupsPrefix+url.PathEscape(id))
	}
	return x.notFound("group " + id + " was not found")
}

// groupList answers with the groups an organization owns, whatever
// merchant the request acts for: the key belongs to the organization.
// Asking for another organization's groups is 403, as the spec's
// permissions rule it. The answer is the spec's list: organizationId,
// count, _embedded.groups[], _links.self, and _links.next only while a
// page follows (in the form asked: query or path). The spec documents no
// paging and no totalCount, so none is sent; the pages are the
// sandbox's own (offset, limit), reached by its links.
func (s *Server) groupList(x *exchange, org, path string) answer {
	if org == "" {
		return x.validationError("organizationId is required", errorDetail{Field: "organizationId", Reason: "MISSING_FIELD"})
	}
	if !s.canSeeOrg(x.user, org) {
		return x.forbidden("no access to the groups of organization " + org)
	}
	offset, limit, refused := x.page(100, 1000, "organizationId")
	if refused != nil {
		return *refused
	}
	var owned []*group
	for _, g := range s.groups {
		if g.owner == org {
			owned = append(owned, g)
		}
	}
	items := make([]groupItem, 0, min(limit, len(owned)))
	for _, g := range window(owned, offset, limit) {
		items = append(items, groupItem{ID: g.id, Name: g.name, Description: g.description, Members: append([]string{}, g.members...),
			Metadata: groupMeta{CreatedTime: ts(g.created), LastUpdatedTime: ts(g.updated)},
			Links:    map[string]link{"self": {Href: "/group-management/v1/groups/" + g.id}}})
	}
	q := url.Values{}
	if path == groupsPath {
		q.Set("organizationId", org)
	}
	links := pageLinks(path, q, offset, limit, len(owned), false)
	return reply(http.StatusOK, map[string]any{
		"organizationId": org, "count": len(items),
		"_embedded": map[string]any{"groups": items}, "_links": links,
	})
}

// checkMIDs validates organization ids to put in a group: members of the
// organization (the portfolio's MIDs), each once.
func (s *Server) checkMIDs(c *checks, field string, ids []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		if _, ok := s.memberIndex(id); !ok {
			c.invalid(field, "INVALID_DATA: unknown organization "+id)
			continue
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// createGroup answers POST groupsPath with the group record (201).
func (s *Server) createGroup(x *exchange, d doc) answer {
	var c checks
	c.require(d, "organizationId", "name")
	org := d.str("organizationId")
	typ := strings.ToUpper(d.str("type"))
	if typ == "" {
		typ = groupTypeCustom
	} else if typ != groupTypeCustom {
		c.invalid("type", "")
	}
	mids := s.checkMIDs(&c, "selectedOrganizationIds", d.strings("selectedOrganizationIds"))
	if len(mids) > maxGroupMembers {
		c.invalid("selectedOrganizationIds", fmt.Sprintf("LIMIT_EXCEEDED: at most %d MIDs per group", maxGroupMembers))
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	if !s.canSeeOrg(x.user, org) || (x.user.groupAccess() == groupsOwn) != (org == DefaultMerchantAccountID) {
		return x.forbidden("no access to create groups of organization " + org)
	}
	now := s.Clock()
	n := 0
	for _, g := range s.groups {
		if g.owner == org {
			n++
		}
	}
	if n >= maxGroups {
		return x.invalid(fmt.Sprintf("organization %s already has %d groups, the limit", org, maxGroups),
			errorDetail{Field: "organizationId", Reason: "LIMIT_EXCEEDED"})
	}
	g := &group{id: strconv.Itoa(s.nextGroupID), owner: org, name: d.str("name"), description: d.str("description"),
		groupType: typ, members: mids, created: now, updated: now}
	s.nextGroupID++
	s.groups = append(s.groups, g)
	return reply(http.StatusCreated, g.record())
}

// patchGroup answers PATCH groupsPath/{groupId}: description, name and
// membership changes, additions and removals combined; a status code only.
func (s *Server) patchGroup(x *exchange, d doc) answer {
	var c checks
	c.require(d, "organizationId")
	add := s.checkMIDs(&c, "addOrganizationIds", d.strings("addOrganizationIds"))
	remove := s.checkMIDs(&c, "removeOrganizationIds", d.strings("removeOrganizationIds"))
	for _, id := range add {
		if slices.Contains(remove, id) {
			c.invalid("removeOrganizationIds", "INVALID_DATA: "+id+" is both added and removed")
		}
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	g := s.findGroupLocked(x.r.PathValue("id"))
	switch {
	case g == nil:
		return answer{code: http.StatusNotFound}
	case x.user.groupAccess() == groupsView || !canManage(x.user, g):
		return answer{code: http.StatusForbidden}
	case d.str("organizationId") != g.owner:
		// The group belongs to another organization than the one named.
		return answer{code: http.StatusBadRequest}
	}
	members := slices.DeleteFunc(append([]string{}, g.members...), func(id string) bool { return slices.Contains(remove, id) })
	for _, id := range add {
		if !slices.Contains(members, id) {
			members = append(members, id)
		}
	}
	if len(members) > maxGroupMembers {
		return answer{code: http.StatusBadRequest}
	}
	g.members = members
	if d.has("description") {
		g.description = d.str("description")
	}
	if v := d.str("name"); v != "" {
		// Not listed among the spec's PATCH fields; a rename is what the
		// platform most plausibly allows alongside the description.
		g.name = v
	}
	g.updated = s.Clock()
	return answer{code: http.StatusOK}
}

// deleteGroup answers DELETE groupsPath/{groupId}: irreversible, a status
// code only.
func (s *Server) deleteGroup(x *exchange, _ noBody) answer {
	id := x.r.PathValue("id")
	for i, g := range s.groups {
		if g.id != id {
			continue
		}
		if x.user.groupAccess() == groupsView || !canManage(x.user, g) {
			return answer{code: http.StatusForbidden}
		}
		s.groups = slices.Delete(s.groups, i, i+1)
		return answer{code: http.StatusOK}
	}
	return answer{code: http.StatusNotFound}
}
