package validate

import (
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScaledObject is the part of KEDA's keda.sh/v1alpha1 ScaledObject (a CRD, so not in k8s.io/api)
// the chart may use; decoded strictly like the built-in kinds.
type ScaledObject struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            ScaledObjectSpec  `json:"spec"`
}

// ScaledObjectSpec follows KEDA's ScaledObjectSpec field names.
type ScaledObjectSpec struct {
	ScaleTargetRef   ScaleTarget    `json:"scaleTargetRef"`
	PollingInterval  *int32         `json:"pollingInterval,omitempty"`
	CooldownPeriod   *int32         `json:"cooldownPeriod,omitempty"`
	IdleReplicaCount *int32         `json:"idleReplicaCount,omitempty"`
	MinReplicaCount  *int32         `json:"minReplicaCount,omitempty"`
	MaxReplicaCount  *int32         `json:"maxReplicaCount,omitempty"`
	Triggers         []ScaleTrigger `json:"triggers"`
}

// ScaleTarget names the Deployment to scale (apiVersion and kind default to apps/v1 Deployment).
type ScaleTarget struct {
	APIVersion             string `json:"apiVersion,omitempty"`
	Kind                   string `json:"kind,omitempty"`
	Name                   string `json:"name"`
	EnvSourceContainerName string `json:"envSourceContainerName,omitempty"`
}

// ScaleTrigger is one scaler; its metadata is the scaler's own settings, all strings.
type ScaleTrigger struct {
	Type              string            `json:"type"`
	Name              string            `json:"name,omitempty"`
	MetricType        string            `json:"metricType,omitempty"`
	UseCachedMetrics  bool              `json:"useCachedMetrics,omitempty"`
	Metadata          map[string]string `json:"metadata"`
	AuthenticationRef *struct {
		Name string `json:"name"`
		Kind string `json:"kind,omitempty"`
	} `json:"authenticationRef,omitempty"`
}

// Check reports the first required field missing or out of range.
func (s *ScaledObject) Check() error {
	if s.Spec.ScaleTargetRef.Name == "" {
		return fmt.Errorf("spec.scaleTargetRef.name is required")
	}
	if k := s.Spec.ScaleTargetRef.Kind; k != "" && k != "Deployment" {
		return fmt.Errorf("spec.scaleTargetRef.kind %q: the chart scales a Deployment", k)
	}
	if s.Spec.MinReplicaCount != nil && s.Spec.MaxReplicaCount != nil && *s.Spec.MinReplicaCount > *s.Spec.MaxReplicaCount {
		return fmt.Errorf("minReplicaCount %d above maxReplicaCount %d", *s.Spec.MinReplicaCount, *s.Spec.MaxReplicaCount)
	}
	if len(s.Spec.Triggers) == 0 {
		return fmt.Errorf("spec.triggers is empty")
	}
	for i, t := range s.Spec.Triggers {
		if t.Type == "" {
			return fmt.Errorf("triggers[%d].type is required", i)
		}
		if t.Type != "prometheus" {
			continue
		}
		for _, key := range []string{"serverAddress", "query", "threshold"} {
			if t.Metadata[key] == "" {
				return fmt.Errorf("triggers[%d] (prometheus): metadata.%s is required", i, key)
			}
		}
		for _, key := range []string{"threshold", "activationThreshold"} {
			if v, ok := t.Metadata[key]; ok {
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					return fmt.Errorf("triggers[%d]: metadata.%s %q is not a number", i, key, v)
				}
			}
		}
	}
	return nil
}
