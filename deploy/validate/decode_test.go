package validate

import (
	"strings"
	"testing"
)

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  REPLICAS: 1
  selector: { matchLabels: { a: b } }
  template:
    metadata: { labels: { a: b } }
    spec:
      containers:
        - name: c
          image: i
`

const scaledObject = `
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: { name: s }
spec:
  scaleTargetRef: { name: w }
  minReplicaCount: 1
  maxReplicaCount: 3
  triggers:
    - type: prometheus
      metadata: { serverAddress: "http://p:9090", query: "sum(kairos_queue_depth)", threshold: "THRESHOLD" }
`

func TestDecodeAcceptsWellFormedObjects(t *testing.T) {
	stream := strings.Replace(deployment, "REPLICAS", "replicas", 1) + "---\n# Source: x\n" + strings.Replace(scaledObject, "THRESHOLD", "10", 1)
	objects, err := Decode([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	if len(objects) != 2 || objects[0].Kind != "Deployment" || objects[1].Kind != "ScaledObject" {
		t.Fatalf("decoded %+v", objects)
	}
	if err := objects[1].Obj.(*ScaledObject).Check(); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeRefusesTypos(t *testing.T) {
	cases := map[string]string{
		"misspelt field":            strings.Replace(deployment, "REPLICAS", "replica", 1),
		"misplaced field":           strings.Replace(deployment, "REPLICAS: 1", "replicas: 1\n  containers: []", 1),
		"duplicate field":           strings.Replace(deployment, "REPLICAS: 1", "replicas: 1\n  replicas: 2", 1),
		"unknown kind":              "apiVersion: apps/v1\nkind: Deploymnt\nmetadata: { name: d }\n",
		"typo in a ScaledObject":    strings.Replace(strings.Replace(scaledObject, "THRESHOLD", "10", 1), "scaleTargetRef: { name", "scaleTargetRef: { nme", 1),
		"wrong type in a container": strings.Replace(strings.Replace(deployment, "REPLICAS", "replicas", 1), "image: i", "image: [i]", 1),
	}
	for name, manifest := range cases {
		if _, err := Decode([]byte(manifest)); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}

func TestScaledObjectCheckRefusesMissingFields(t *testing.T) {
	cases := map[string]string{
		"no threshold":           strings.Replace(scaledObject, `, threshold: "THRESHOLD"`, "", 1),
		"threshold not a number": scaledObject,
		"no target":              strings.Replace(strings.Replace(scaledObject, "THRESHOLD", "10", 1), "scaleTargetRef: { name: w }", "scaleTargetRef: {}", 1),
		"min above max":          strings.Replace(strings.Replace(scaledObject, "THRESHOLD", "10", 1), "minReplicaCount: 1", "minReplicaCount: 5", 1),
	}
	for name, manifest := range cases {
		objects, err := Decode([]byte(manifest))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := objects[0].Obj.(*ScaledObject).Check(); err == nil {
			t.Errorf("%s: Check passed", name)
		}
	}
}
