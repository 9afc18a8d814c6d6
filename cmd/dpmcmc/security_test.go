package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/rng"
	"github.com/dpmcmc/dpmcmc/core/run"
)

// The run config, which every export embeds, has no place for a noise key:
// no field (at any depth) of type rng.Key, of a byte array or slice, or
// named like a key or secret. (The key itself is checked against every
// output in key_test.go, built with -tags dpmcmc_testkey.)
func TestConfigHasNoKeyField(t *testing.T) {
	keyT := reflect.TypeOf(rng.Key{})
	seen := map[reflect.Type]bool{}
	var walk func(tp reflect.Type, path string)
	walk = func(tp reflect.Type, path string) {
		if seen[tp] {
			return
		}
		seen[tp] = true
		if tp == keyT || (tp.Kind() == reflect.Array || tp.Kind() == reflect.Slice) && tp.Elem().Kind() == reflect.Uint8 {
			t.Errorf("%s has type %v: a key could be stored there", path, tp)
		}
		switch tp.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(tp.Elem(), path+"[]")
		case reflect.Map:
			walk(tp.Key(), path+"{key}")
			walk(tp.Elem(), path+"{}")
		case reflect.Struct:
			for i := range tp.NumField() {
				f := tp.Field(i)
				name := strings.ToLower(f.Name + " " + f.Tag.Get("json"))
				for _, bad := range []string{"key", "secret", "noise_seed", "chacha"} {
					if strings.Contains(name, bad) {
						t.Errorf("%s.%s (json %q) looks like a secret", path, f.Name, f.Tag.Get("json"))
					}
				}
				walk(f.Type, path+"."+f.Name)
			}
		}
	}
	walk(reflect.TypeOf(run.Config{}), "Config")
	walk(reflect.TypeOf(run.PrivacyReport{}), "PrivacyReport")
}
