package sandbox

import (
	"slices"
	"strings"
)

// The platform derives who calls from the credentials, and the spec's group
// management permissions depend on the kind of user. The sandbox therefore
// has one key per kind of user, all with the same shared secret, their ids
// derived from Config.KeyID (default sandbox-key):
//
//	sandbox-key                portfolio user not assigned to a group, with Groups Manage
//	sandbox-key-merchant       merchant account user (account sbxacct01), not assigned to a group
//	sandbox-key-transacting    transacting organization user of sbxmid000001
//	sandbox-key-no-groups      portfolio user without the Groups Manage permission
//	sandbox-key-group-<id>     user assigned to group <id>
//
// The default key works exactly as it always did. The signing string's
// v-c-merchant-id line carries the key's owner (User.SigningID): the
// organization, except for the merchant account user (its account) and the
// transacting user (its MID).

// DefaultMerchantAccountID is the merchant account of the merchant-user key.
const DefaultMerchantAccountID = "sbxacct01"

// UserKind is the kind of platform user a key was created for.
type UserKind string

// The kinds of user the spec's permission rules name.
const (
	UserPortfolio          UserKind = "portfolio"
	UserMerchant           UserKind = "merchant"
	UserTransacting        UserKind = "transacting"
	UserNoGroupsPermission UserKind = "no-groups-permission"
	UserGroupAssigned      UserKind = "group-assigned"
)

// User is a key of the sandbox and the user it stands for.
type User struct {
	KeyID string
	Kind  UserKind
	// SigningID is what the v-c-merchant-id line of the signing string must
	// carry: the key's owner.
	SigningID string
	// Account is the organization the user belongs to: the portfolio, the
	// merchant account or the transacting MID.
	Account string
	// GroupID is the group a UserGroupAssigned user is assigned to.
	GroupID string
}

// Users lists the fixed keys; a group-assigned key exists for every group,
// named UserKeyID(UserGroupAssigned, groupID).
func (s *Server) Users() []User {
	var out []User
	for _, k := range []UserKind{UserPortfolio, UserMerchant, UserTransacting, UserNoGroupsPermission} {
		u, _ := s.user(s.UserKeyID(k, ""))
		out = append(out, u)
	}
	return out
}

// UserKeyID is the key id of a kind of user (groupID only for
// UserGroupAssigned).
func (s *Server) UserKeyID(kind UserKind, groupID string) string {
	switch kind {
	case UserMerchant:
		return s.cfg.KeyID + "-merchant"
	case UserTransacting:
		return s.cfg.KeyID + "-transacting"
	case UserNoGroupsPermission:
		return s.cfg.KeyID + "-no-groups"
	case UserGroupAssigned:
		return s.cfg.KeyID + "-group-" + groupID
	}
	return s.cfg.KeyID
}

// user finds the user of a key id.
func (s *Server) user(keyID string) (User, bool) {
	org := s.cfg.OrganizationID
	switch keyID {
	case s.cfg.KeyID:
		return User{KeyID: keyID, Kind: UserPortfolio, SigningID: org, Account: org}, true
	case s.UserKeyID(UserMerchant, ""):
		return User{KeyID: keyID, Kind: UserMerchant, SigningID: DefaultMerchantAccountID, Account: DefaultMerchantAccountID}, true
	case s.UserKeyID(UserTransacting, ""):
		mid := memberID(0)
		return User{KeyID: keyID, Kind: UserTransacting, SigningID: mid, Account: mid}, true
	case s.UserKeyID(UserNoGroupsPermission, ""):
		return User{KeyID: keyID, Kind: UserNoGroupsPermission, SigningID: org, Account: org}, true
	}
	if id, ok := strings.CutPrefix(keyID, s.UserKeyID(UserGroupAssigned, "")); ok {
		if g := s.findGroup(id); g != nil {
			return User{KeyID: keyID, Kind: UserGroupAssigned, SigningID: org, Account: org, GroupID: id}, true
		}
	}
	return User{}, false
}

// mayActFor reports whether u may call for merchant mid (the
// v-c-merchant-id header): a portfolio or merchant account user for its
// own organization and any member, a transacting user for its own MID, a
// group-assigned user for the members of its group only.
func (s *Server) mayActFor(u User, mid string) bool {
	_, isMember := s.memberIndex(mid)
	switch u.Kind {
	case UserTransacting:
		return mid == u.Account
	case UserGroupAssigned:
		g := s.findGroup(u.GroupID)
		if g == nil {
			return false
		}
		s.groupMu.RLock()
		defer s.groupMu.RUnlock()
		return slices.Contains(g.members, mid)
	}
	return isMember || mid == u.Account
}

// groupAccess is what a user may do in group management (spec,
// Authentication 3).
type groupAccess uint8

const (
	groupsNone   groupAccess = iota // no Groups Manage permission, or assigned to a group
	groupsView                      // a transacting organization user: no create, update or delete
	groupsOwn                       // a merchant user: the groups of its own account
	groupsManage                    // a portfolio user: every group, merchant users' included
)

func (u User) groupAccess() groupAccess {
	switch u.Kind {
	case UserPortfolio:
		return groupsManage
	case UserMerchant:
		return groupsOwn
	case UserTransacting:
		return groupsView
	}
	return groupsNone
}
