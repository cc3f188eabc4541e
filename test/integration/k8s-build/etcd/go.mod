// Wrapper module that builds the etcd server for the real-server test tier:
// `go build go.etcd.io/etcd/server/v3` from here (etcd's own go.mod uses relative replaces, so
// `go install go.etcd.io/etcd/server/v3@...` cannot work). Keep the version equal to
// ETCD_VERSION in ../versions.env.
module lineup.test/k8s-build/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 v3.6.8
