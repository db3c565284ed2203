package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// KAIROS_RENDERED_DIR holds `helm template` output, one file per values file (scripts/check-deploy.sh
// writes default.yaml and production.yaml there).
func renderedFiles(t *testing.T) []string {
	dir := os.Getenv("KAIROS_RENDERED_DIR")
	if dir == "" {
		t.Fatal("KAIROS_RENDERED_DIR is not set: run scripts/check-deploy.sh")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rendered manifests in %s (%v)", dir, err)
	}
	return files
}

func TestRenderedManifests(t *testing.T) {
	for _, file := range renderedFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			objects, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, problem := range checkChart(objects) {
				t.Error(problem)
			}
			// values-production.yaml turns KEDA on, so the CRD is checked on every run.
			if filepath.Base(file) == "production.yaml" {
				if len(ofKind[*ScaledObject](objects)) == 0 {
					t.Error("the production render has no ScaledObject")
				}
				// Production URLs carry credentials: they must come from Secrets, not from the values.
				for _, d := range ofKind[*appsv1.Deployment](objects) {
					for _, name := range []string{"MONGO_URL", "REDIS_URL"} {
						e := env(d.Spec.Template.Spec.Containers[0], name)
						if e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
							t.Errorf("%s: %s must come from a Secret in production", d.Name, name)
						}
					}
				}
			}
		})
	}
}

func ofKind[T any](objects []Object) []T {
	var out []T
	for _, o := range objects {
		if v, ok := o.Obj.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func env(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

func hasPort(c corev1.Container, port string) bool {
	return portNumber(c, port) != 0
}

// portNumber is the container port a name or number refers to, 0 when the container declares none.
func portNumber(c corev1.Container, port string) int32 {
	for _, p := range c.Ports {
		if p.Name == port || strconv.Itoa(int(p.ContainerPort)) == port {
			return p.ContainerPort
		}
	}
	return 0
}

// checkChart returns what is wrong with one render: the three roles, their probes, grace period,
// resources, secrets, metrics annotations, the api Service, a PDB per Deployment, the ScaledObject.
func checkChart(objects []Object) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	deployments := ofKind[*appsv1.Deployment](objects)
	byRole := map[string]*appsv1.Deployment{}
	for _, d := range deployments {
		pod := d.Spec.Template
		if d.Spec.Selector == nil || !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(labels.Set(pod.Labels)) {
			fail("%s: selector does not match its pod labels", d.Name)
		}
		if len(pod.Spec.Containers) != 1 {
			fail("%s: want one container, got %d", d.Name, len(pod.Spec.Containers))
			continue
		}
		c := pod.Spec.Containers[0]
		roles := env(c, "ROLES")
		if roles == nil {
			fail("%s: no ROLES", d.Name)
			continue
		}
		role := roles.Value
		byRole[role] = d
		if pod.Labels["app.kubernetes.io/component"] != role {
			fail("%s: component label %q differs from ROLES=%s", d.Name, pod.Labels["app.kubernetes.io/component"], role)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
			fail("%s: cpu and memory requests are required", d.Name)
		}
		if c.LivenessProbe == nil || c.ReadinessProbe == nil {
			fail("%s: liveness and readiness probes are required", d.Name)
		}
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p == nil {
				continue
			}
			if p.HTTPGet != nil && !hasPort(c, p.HTTPGet.Port.String()) {
				fail("%s: probe on port %s, which the container does not declare", d.Name, p.HTTPGet.Port.String())
			}
			if p.TCPSocket != nil && !hasPort(c, p.TCPSocket.Port.String()) {
				fail("%s: probe on port %s, which the container does not declare", d.Name, p.TCPSocket.Port.String())
			}
		}
		if role == "api" {
			if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" {
				fail("%s: liveness must be GET /healthz", d.Name)
			}
			if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
				fail("%s: readiness must be GET /readyz", d.Name)
			}
		}
		drain := env(c, "WORKER_DRAIN_MS")
		drainMs, err := strconv.Atoi(func() string {
			if drain == nil {
				return "10000"
			}
			return drain.Value
		}())
		if err != nil {
			fail("%s: WORKER_DRAIN_MS %q is not a number", d.Name, drain.Value)
		}
		if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g*1000 <= int64(drainMs) {
			fail("%s: terminationGracePeriodSeconds must be above WORKER_DRAIN_MS (%d ms)", d.Name, drainMs)
		}
		for _, name := range []string{"JWT_SECRET", "JWT_PUBLIC_KEY"} {
			e := env(c, name)
			if e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
				fail("%s: %s must come from a Secret", d.Name, name)
			}
		}
		a := pod.Annotations
		if a["prometheus.io/scrape"] != "true" || a["prometheus.io/path"] != "/metrics" || !hasPort(c, a["prometheus.io/port"]) {
			fail("%s: prometheus.io annotations must name /metrics on a declared port, got %v", d.Name, a)
		}
		// Every role serves /metrics on METRICS_PORT, the api included: never on the port its Service exposes.
		if e := env(c, "METRICS_PORT"); e == nil || portNumber(c, e.Value) == 0 || portNumber(c, e.Value) != portNumber(c, a["prometheus.io/port"]) {
			fail("%s: METRICS_PORT must equal the scraped port %q", d.Name, a["prometheus.io/port"])
		}
		if role == "api" {
			if e := env(c, "PORT"); e == nil || portNumber(c, e.Value) == 0 {
				fail("%s: PORT must be a port the container declares", d.Name)
			} else if portNumber(c, e.Value) == portNumber(c, a["prometheus.io/port"]) {
				fail("%s: PORT must differ from the scraped METRICS_PORT (/metrics answers without credentials)", d.Name)
			}
		}
		// Kairos listens on loopback only in development mode; a pod is reached from outside.
		if e := env(c, "HOST"); e == nil || e.Value != "0.0.0.0" {
			fail("%s: HOST must be 0.0.0.0 so the probes and scrapes reach the pod", d.Name)
		}
		if pod.Spec.SecurityContext == nil || pod.Spec.SecurityContext.RunAsNonRoot == nil || !*pod.Spec.SecurityContext.RunAsNonRoot {
			fail("%s: must run as non-root", d.Name)
		}
	}
	for _, role := range []string{"api", "scheduler", "worker"} {
		if byRole[role] == nil {
			fail("no Deployment with ROLES=%s", role)
		}
	}
	if s := byRole["scheduler"]; s != nil && (s.Spec.Replicas == nil || *s.Spec.Replicas < 2) {
		fail("the scheduler needs 2 replicas or more (one leads, one stands by)")
	}

	services := ofKind[*corev1.Service](objects)
	if api := byRole["api"]; api != nil {
		found := false
		for _, s := range services {
			if len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(api.Spec.Template.Labels)) {
				found = true
				c := api.Spec.Template.Spec.Containers[0]
				metrics := portNumber(c, api.Spec.Template.Annotations["prometheus.io/port"])
				for _, p := range s.Spec.Ports {
					if !hasPort(c, p.TargetPort.String()) {
						fail("Service %s: targetPort %s is not a port of the api container", s.Name, p.TargetPort.String())
					}
					if portNumber(c, p.TargetPort.String()) == metrics {
						fail("Service %s: exposes the metrics port (%s); /metrics answers without credentials", s.Name, p.TargetPort.String())
					}
				}
			}
		}
		if !found {
			fail("no Service selects the api pods")
		}
	}

	problems = append(problems, checkNetworkPolicies(deployments, ofKind[*networkingv1.NetworkPolicy](objects))...)

	pdbs := ofKind[*policyv1.PodDisruptionBudget](objects)
	for _, d := range deployments {
		covered := false
		for _, p := range pdbs {
			if p.Spec.Selector != nil && labels.SelectorFromSet(p.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
				covered = true
			}
		}
		if !covered {
			fail("%s: no PodDisruptionBudget selects its pods", d.Name)
		}
	}

	for _, so := range ofKind[*ScaledObject](objects) {
		if err := so.Check(); err != nil {
			fail("ScaledObject %s: %v", so.Metadata.Name, err)
			continue
		}
		w := byRole["worker"]
		if w == nil || so.Spec.ScaleTargetRef.Name != w.Name {
			fail("ScaledObject %s: scaleTargetRef %q is not the worker Deployment", so.Metadata.Name, so.Spec.ScaleTargetRef.Name)
		} else if w.Spec.Replicas != nil {
			fail("%s: replicas must be left to KEDA while the ScaledObject scales it", w.Name)
		}
		for _, t := range so.Spec.Triggers {
			if t.Type == "prometheus" {
				if err := checkMetricNames(t.Metadata["query"]); err != nil {
					fail("ScaledObject %s: %v", so.Metadata.Name, err)
				}
			}
		}
	}
	return problems
}

var metricName = regexp.MustCompile(`\bkairos_[a-z_]+\b`)

// checkMetricNames: the query must use kairos_queue_depth, and every kairos_ family it names must be
// registered in src/metrics/ (the families are defined in its *Families.ts files).
func checkMetricNames(query string) error {
	files, err := filepath.Glob("../../src/metrics/*.ts")
	if err != nil {
		return err
	}
	var source strings.Builder
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		source.Write(text)
	}
	if !strings.Contains(source.String(), "name: 'kairos_queue_depth'") {
		return fmt.Errorf("found no metric families in src/metrics/ (%d files)", len(files))
	}
	names := metricName.FindAllString(query, -1)
	if !strings.Contains(query, "kairos_queue_depth") {
		return fmt.Errorf("query %q does not use kairos_queue_depth", query)
	}
	for _, n := range names {
		if !strings.Contains(source.String(), "name: '"+n+"'") {
			return fmt.Errorf("query uses %s, which src/metrics/ does not register", n)
		}
	}
	return nil
}
