package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// cronJobs decodes a manifest's documents as the Kubernetes API types,
// strictly: a field the API does not have (a typo, a wrong level) fails.
func cronJobs(t *testing.T, name string) []batchv1.CronJob {
	t.Helper()
	b, err := Files.ReadFile("kubernetes/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []batchv1.CronJob
	for i, doc := range strings.Split(string(b), "\n---\n") {
		var cj batchv1.CronJob
		if err := yaml.UnmarshalStrict([]byte(doc), &cj); err != nil {
			t.Fatalf("%s document %d is not a batch/v1 CronJob: %v", name, i, err)
		}
		if cj.APIVersion != "batch/v1" || cj.Kind != "CronJob" {
			t.Fatalf("%s document %d: %s %s, want batch/v1 CronJob", name, i, cj.APIVersion, cj.Kind)
		}
		out = append(out, cj)
	}
	return out
}

// TestKubernetesManifests checks each manifest against the API types and
// what a night relies on: never two runs at once on one database, a time
// zone (yesterday is a UTC day), no retry loop restarting a pod in place,
// secrets from a Secret, every mount backed by a volume.
func TestKubernetesManifests(t *testing.T) {
	for _, name := range []string{"cronjob.yaml", "shards.yaml", "merge.yaml"} {
		for _, cj := range cronJobs(t, name) {
			s := cj.Spec
			if s.ConcurrencyPolicy != batchv1.ForbidConcurrent {
				t.Errorf("%s: concurrencyPolicy %q, want Forbid", name, s.ConcurrencyPolicy)
			}
			if s.TimeZone == nil || *s.TimeZone != "Etc/UTC" {
				t.Errorf("%s: timeZone %v, want Etc/UTC", name, s.TimeZone)
			}
			pod := s.JobTemplate.Spec.Template.Spec
			if pod.RestartPolicy != corev1.RestartPolicyNever {
				t.Errorf("%s: restartPolicy %q, want Never (a failed night is a new pod that resumes)", name, pod.RestartPolicy)
			}
			volumes := map[string]bool{}
			for _, v := range pod.Volumes {
				volumes[v.Name] = true
			}
			if len(pod.Containers) != 1 {
				t.Fatalf("%s: %d containers, want 1", name, len(pod.Containers))
			}
			c := pod.Containers[0]
			for _, m := range c.VolumeMounts {
				if !volumes[m.Name] {
					t.Errorf("%s: mount %q has no volume", name, m.Name)
				}
			}
			for _, e := range c.Env {
				if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					t.Errorf("%s: env %s is not read from a Secret", name, e.Name)
				}
			}
		}
	}
}

// TestShardsAreOneIndexedJob: the Indexed Job's completions, parallelism
// and the n of --shard i/n must agree, or members go unreconciled.
func TestShardsAreOneIndexedJob(t *testing.T) {
	cj := cronJobs(t, "shards.yaml")[0]
	job := cj.Spec.JobTemplate.Spec
	if job.CompletionMode == nil || *job.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v, want Indexed", job.CompletionMode)
	}
	args := strings.Join(job.Template.Spec.Containers[0].Args, " ")
	m := regexp.MustCompile(`--shard "\$\{JOB_COMPLETION_INDEX\}/(\d+)"`).FindStringSubmatch(args)
	if m == nil {
		t.Fatalf("no --shard \"${JOB_COMPLETION_INDEX}/n\" in %q", args)
	}
	n, _ := strconv.Atoi(m[1])
	if job.Completions == nil || job.Parallelism == nil || int(*job.Completions) != n || int(*job.Parallelism) != n {
		t.Fatalf("completions %v, parallelism %v, --shard n %d: must be equal", job.Completions, job.Parallelism, n)
	}
	merge := cronJobs(t, "merge.yaml")[0]
	if merge.Spec.Schedule == cj.Spec.Schedule {
		t.Fatalf("the merge runs at the shards' time (%s): it would find them unfinished", cj.Spec.Schedule)
	}
}

// TestSystemdUnits checks the timer catches up a missed night and starts
// the service, and runs systemd-analyze verify where the machine has it.
func TestSystemdUnits(t *testing.T) {
	timer, err := Files.ReadFile("systemd/reconcile.timer")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nPersistent=true\n", "\nUnit=reconcile.service\n", "\nOnCalendar="} {
		if !bytes.Contains(timer, []byte(want)) {
			t.Errorf("reconcile.timer lacks %q", strings.TrimSpace(want))
		}
	}
	service, err := Files.ReadFile("systemd/reconcile.service")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(service, []byte("\nType=oneshot\n")) {
		t.Error("reconcile.service is not Type=oneshot: the timer would not wait for the night to end")
	}
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed; the units' syntax is checked where it is (CI)")
	}
	// verify checks that ExecStart's program exists: point it at this
	// test's own binary, an executable every machine running it has.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	unit := bytes.ReplaceAll(service, []byte("/usr/local/bin/reconcile"), []byte(self))
	if err := os.WriteFile(filepath.Join(dir, "reconcile.service"), unit, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reconcile.timer"), timer, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sa, "verify", filepath.Join(dir, "reconcile.service"), filepath.Join(dir, "reconcile.timer"))
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
