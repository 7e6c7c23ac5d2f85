package natsjournal

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// maxPlainToken is the longest token that is the id itself in unpadded
// base64url (ids up to 192 bytes); longer ids are hashed. Every subject and
// key the journal derives from an id is then well under the server's control
// line limit (4 KiB by default) whatever the id.
const maxPlainToken = 256

// hashedMark begins the token of a hashed id: it is not a base64url
// character, so a hashed token never reads as a plain one.
const hashedMark = "="

// token returns a thread id as one subject token and key-value key: the id
// in unpadded base64url when that is at most maxPlainToken characters, else
// "=" and the hex SHA-256 of the id (65 characters). The id of a hashed
// token is kept in each message (header Agview-Thread) and in the meta
// value, for Threads.
func token(thread string) string {
	if base64.RawURLEncoding.EncodedLen(len(thread)) <= maxPlainToken {
		return base64.RawURLEncoding.EncodeToString([]byte(thread))
	}
	sum := sha256.Sum256([]byte(thread))
	return hashedMark + hex.EncodeToString(sum[:])
}

// hashed reports whether tok is the token of a hashed id.
func hashed(tok string) bool { return strings.HasPrefix(tok, hashedMark) }

// plainID returns the id of a plain token; false for a hashed token or one
// that is not base64url.
func plainID(tok string) (string, bool) {
	if hashed(tok) {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) == 0 {
		return "", false
	}
	return string(b), true
}

// encodeID and decodeID carry an id in a header value: base64url, so that no
// byte of the id is changed by the header's encoding.
func encodeID(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

func decodeID(v string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	return string(b), err == nil && len(b) > 0
}
