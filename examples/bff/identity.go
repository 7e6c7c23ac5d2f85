package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// cookieName is the identity cookie.
const cookieName = "agview_owner"

// cookieIdentity names each browser's owner with a random id in a cookie
// signed by HMAC-SHA256: HttpOnly (no script reads it), SameSite=Lax (no
// other site's request carries it), Secure over TLS. A cookie that does not
// verify is replaced by a new identity.
type cookieIdentity struct {
	key []byte
}

// newCookieIdentity loads the key from file, generating it (mode 0600) when
// the file does not exist; file "" keeps a key in memory only.
func newCookieIdentity(file string) (*cookieIdentity, error) {
	if file == "" {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		return &cookieIdentity{key: key}, nil
	}
	key, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) { // another replica made it meanwhile
			return newCookieIdentity(file)
		}
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(key); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		return &cookieIdentity{key: key}, nil
	}
	if err != nil {
		return nil, err
	}
	if len(key) < 32 {
		return nil, fmt.Errorf("%s holds %d bytes: a key is 32 random bytes (delete the file to make a new one)", file, len(key))
	}
	return &cookieIdentity{key: key}, nil
}

// sign returns the cookie value naming owner.
func (c *cookieIdentity) sign(owner string) string {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(owner))
	return owner + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// verify returns the owner a cookie value names, if it is signed by the key.
func (c *cookieIdentity) verify(value string) (string, bool) {
	owner, _, ok := strings.Cut(value, ".")
	if !ok || owner == "" || len(owner) > 64 {
		return "", false
	}
	return owner, hmac.Equal([]byte(c.sign(owner)), []byte(value))
}

// owner is threads.Options.Identify: the owner the request's cookie names.
func (c *cookieIdentity) owner(r *http.Request) (string, error) {
	ck, err := r.Cookie(cookieName)
	if err != nil {
		return "", errors.New("no identity cookie")
	}
	owner, ok := c.verify(ck.Value)
	if !ok {
		return "", errors.New("an identity cookie that does not verify")
	}
	return owner, nil
}

// middleware gives a browser without a valid cookie a new identity, on the
// response and on the request that goes on to next.
func (c *cookieIdentity) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := c.owner(r); err != nil {
			b := make([]byte, 16)
			_, _ = rand.Read(b)
			value := c.sign(base64.RawURLEncoding.EncodeToString(b))
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: value, Path: "/", HttpOnly: true,
				SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil, MaxAge: int((365 * 24 * time.Hour).Seconds())})
			others := r.Cookies()
			r = r.Clone(r.Context())
			r.Header.Del("Cookie")
			for _, ck := range others {
				if ck.Name != cookieName {
					r.AddCookie(ck)
				}
			}
			r.AddCookie(&http.Cookie{Name: cookieName, Value: value})
		}
		next.ServeHTTP(w, r)
	})
}
