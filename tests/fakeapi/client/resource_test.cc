// Tests of the resource registry: the built-in kinds and the names clients resolve them by.
#include "fakeapi/client/resource.h"

#include <gtest/gtest.h>

namespace kube {
namespace {

TEST(RegistryTest, BuiltinsServeEveryKindTheProjectNeeds) {
  Registry r = Registry::WithBuiltins();
  for (const char* plural : {"pods", "nodes", "namespaces", "services", "configmaps", "events", "serviceaccounts",
                             "persistentvolumeclaims", "roles", "rolebindings", "clusterroles", "clusterrolebindings",
                             "leases", "podgroups", "dgljobs"}) {
    const ResourceType* t = r.Find(plural);
    ASSERT_NE(t, nullptr) << plural;
    EXPECT_EQ(t->plural, plural);
  }
  EXPECT_EQ(r.All().size(), 15u);
}

TEST(RegistryTest, GenerationAndDeleteAnswersFollowKubeApiserver) {
  Registry r = Registry::WithBuiltins();
  // Custom resources have metadata.generation; the core kinds served here do not.
  EXPECT_TRUE(r.Find("dgljobs")->has_generation);
  EXPECT_TRUE(r.Find("podgroups")->has_generation);
  for (const char* core : {"pods", "configmaps", "services", "namespaces", "leases", "clusterroles"})
    EXPECT_FALSE(r.Find(core)->has_generation) << core;
  // Only the registries that set ReturnDeletedObject answer a delete with the object.
  for (const char* kind : {"pods", "services", "serviceaccounts", "persistentvolumeclaims"})
    EXPECT_TRUE(r.Find(kind)->returns_deleted_object) << kind;
  for (const char* kind : {"configmaps", "dgljobs", "events", "nodes", "leases", "roles"})
    EXPECT_FALSE(r.Find(kind)->returns_deleted_object) << kind;
}

TEST(RegistryTest, ShortNamesResolve) {
  Registry r = Registry::WithBuiltins();
  const std::pair<const char*, const char*> cases[] = {
      {"po", "pods"}, {"no", "nodes"}, {"ns", "namespaces"}, {"svc", "services"}, {"cm", "configmaps"},
      {"ev", "events"}, {"sa", "serviceaccounts"}, {"pvc", "persistentvolumeclaims"}, {"pg", "podgroups"},
      {"dgl", "dgljobs"}};
  for (auto [short_name, plural] : cases) {
    const ResourceType* t = r.Find(short_name);
    ASSERT_NE(t, nullptr) << short_name;
    EXPECT_EQ(t->plural, plural) << short_name;
  }
}

TEST(RegistryTest, SingularQualifiedAndKindNamesResolveToTheSameType) {
  Registry r = Registry::WithBuiltins();
  const ResourceType* dgl = r.Find("dgljobs");
  ASSERT_NE(dgl, nullptr);
  EXPECT_EQ(r.Find("dgljob"), dgl);
  EXPECT_EQ(r.Find("dgljobs.kubeflow.org"), dgl);
  EXPECT_EQ(r.Find("DGLJob"), dgl);
  EXPECT_EQ(r.Find("dgljob"), dgl);
  EXPECT_EQ(r.Find("DglJob"), dgl);
  EXPECT_EQ(r.Find("Pod"), r.Find("pods"));
  EXPECT_EQ(r.Find("pod"), r.Find("pods"));
  EXPECT_EQ(r.Find("rolebindings.rbac.authorization.k8s.io"), r.Find("RoleBinding"));
}

TEST(RegistryTest, UnknownNamesAreNull) {
  Registry r = Registry::WithBuiltins();
  EXPECT_EQ(r.Find("deployments"), nullptr);
  EXPECT_EQ(r.Find(""), nullptr);
  EXPECT_EQ(r.Find("pods.kubeflow.org"), nullptr);
}

TEST(RegistryTest, BuiltinsHaveTheRightGroupVersionScopeAndStatus) {
  Registry r = Registry::WithBuiltins();
  const ResourceType* pod = r.Find("pods");
  EXPECT_EQ(pod->ApiVersion(), "v1");
  EXPECT_EQ(pod->QualifiedName(), "pods");
  EXPECT_TRUE(pod->namespaced);
  EXPECT_TRUE(pod->has_status);

  EXPECT_FALSE(r.Find("nodes")->namespaced);
  EXPECT_FALSE(r.Find("namespaces")->namespaced);
  for (const char* no_status : {"configmaps", "events", "serviceaccounts", "roles", "rolebindings"}) {
    EXPECT_FALSE(r.Find(no_status)->has_status) << no_status;
  }

  const ResourceType* dgl = r.Find("dgl");
  EXPECT_EQ(dgl->kind, "DGLJob");
  EXPECT_EQ(dgl->ApiVersion(), "kubeflow.org/v1alpha1");
  EXPECT_EQ(dgl->QualifiedName(), "dgljobs.kubeflow.org");
  EXPECT_TRUE(dgl->has_status);
  EXPECT_EQ(r.Find("pg")->ApiVersion(), "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(r.Find("roles")->ApiVersion(), "rbac.authorization.k8s.io/v1");
}

TEST(RegistryTest, FindByKindMatchesApiVersionAndKind) {
  Registry r = Registry::WithBuiltins();
  EXPECT_EQ(r.FindByKind("v1", "Pod"), r.Find("pods"));
  EXPECT_EQ(r.FindByKind("kubeflow.org/v1alpha1", "DGLJob"), r.Find("dgljobs"));
  EXPECT_EQ(r.FindByKind("rbac.authorization.k8s.io/v1", "Role"), r.Find("roles"));
  // The legacy group is not served; the loader converts it first.
  EXPECT_EQ(r.FindByKind("qihoo.net/v1alpha1", "DGLJob"), nullptr);
  EXPECT_EQ(r.FindByKind("v1", "DGLJob"), nullptr);
  EXPECT_EQ(r.FindByKind("apps/v1", "Pod"), nullptr);
}

TEST(RegistryTest, CustomResourcesCanBeAddedAndReplaced) {
  Registry r = Registry::WithBuiltins();
  ResourceType widget;
  widget.group = "example.com";
  widget.version = "v1";
  widget.kind = "Widget";
  widget.plural = "widgets";
  widget.singular = "widget";
  widget.short_names = {"wd"};
  r.Add(widget);
  ASSERT_NE(r.Find("wd"), nullptr);
  EXPECT_EQ(r.Find("widgets.example.com"), r.Find("Widget"));
  EXPECT_EQ(r.FindByKind("example.com/v1", "Widget"), r.Find("wd"));

  widget.version = "v2";
  r.Add(widget);
  EXPECT_EQ(r.All().size(), 16u);
  EXPECT_EQ(r.Find("widgets")->version, "v2");
  EXPECT_EQ(r.FindByKind("example.com/v1", "Widget"), nullptr);
}

TEST(RegistryTest, CorePluralBeatsACustomTypesShortName) {
  Registry r = Registry::WithBuiltins();
  ResourceType odd;
  odd.group = "example.com";
  odd.version = "v1";
  odd.kind = "Odd";
  odd.plural = "odds";
  odd.singular = "odd";
  odd.short_names = {"pods"};
  r.Add(odd);
  EXPECT_EQ(r.Find("pods")->group, "");
}

TEST(RegistryTest, CopiesStayValid) {
  Registry copy;
  {
    Registry original = Registry::WithBuiltins();
    copy = original;
  }
  ASSERT_NE(copy.Find("po"), nullptr);
  EXPECT_EQ(copy.Find("po")->kind, "Pod");
}

}  // namespace
}  // namespace kube
