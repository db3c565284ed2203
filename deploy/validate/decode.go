// Package validate decodes the Helm chart's rendered manifests strictly into their Kubernetes API
// types, so that a misspelt or misplaced field fails instead of being dropped by the API server.
package validate

import (
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Object is one decoded manifest: Obj is a pointer to its API type.
type Object struct {
	Kind string
	Name string
	Obj  any
}

// newTyped returns an empty value of the API type for apiVersion and kind; the chart may render
// only these kinds.
func newTyped(apiVersion, kind string) (any, error) {
	switch apiVersion + " " + kind {
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}, nil
	case "v1 Service":
		return &corev1.Service{}, nil
	case "v1 Secret":
		return &corev1.Secret{}, nil
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, nil
	case "v1 ServiceAccount":
		return &corev1.ServiceAccount{}, nil
	case "networking.k8s.io/v1 NetworkPolicy":
		return &networkingv1.NetworkPolicy{}, nil
	case "policy/v1 PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}, nil
	case "keda.sh/v1alpha1 ScaledObject":
		return &ScaledObject{}, nil
	}
	return nil, fmt.Errorf("unexpected kind %q of apiVersion %q", kind, apiVersion)
}

var separator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// Decode splits a multi-document YAML stream (helm template's output) and decodes each document
// strictly: unknown or duplicate fields are errors.
func Decode(stream []byte) ([]Object, error) {
	var objects []Object
	for i, doc := range separator.Split(string(stream), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		obj, err := newTyped(meta.APIVersion, meta.Kind)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i, meta.Kind, err)
		}
		var named struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		_ = yaml.Unmarshal([]byte(doc), &named)
		if named.Metadata.Name == "" {
			return nil, fmt.Errorf("document %d (%s): metadata.name is empty", i, meta.Kind)
		}
		objects = append(objects, Object{Kind: meta.Kind, Name: named.Metadata.Name, Obj: obj})
	}
	return objects, nil
}

func stripComments(doc string) string {
	var kept []string
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}
