/**
 * The TokenReview suite again in the kubernetes flavor (authentication.k8s.io,
 * bootstrap secrets of type bootstrap.kubernetes.io/token in kube-system).
 */
import '../support/kubernetes-flavor.ts';
import './token-review.test.ts';
