/* GL buffers on memory allocated through Vulkan (GL_EXT_memory_object_fd).
 *
 * Why: on NVIDIA's GL driver (580, H100) a compute shader moves data
 * through large buffer objects of the GL's own at about half the speed it
 * reaches through the same memory allocated by Vulkan and imported into GL:
 * a 1 GiB copy took 1127 us in GL's buffers and 726 us in imported ones,
 * the read of 1 GiB 468 against 344 us (docs/DECISIONS.md, Backends). No
 * flag of glNamedBufferStorage changed that. So large library buffers are
 * allocated by a Vulkan device on the same GPU (matched by UUID), exported
 * as a file descriptor and imported as a GL memory object; the GL buffer
 * object is then an ordinary one to every other part of the library.
 *
 * Where anything is missing (no Vulkan, no matching device, no extension)
 * or fails, the caller falls back to glNamedBufferStorage. The Vulkan
 * device is made on the first large buffer, not with the context. */
#include "gl/gl_vkmem.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef GPGPU_HAVE_VULKAN
#include "vk/vk_backend.h"

typedef struct gl_vkmem {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    PFN_vkGetMemoryFdKHR get_memory_fd;
} gl_vkmem;

/* One imported allocation: the Vulkan side, kept until the GL buffer goes. */
typedef struct gl_vkmem_allocation {
    VkBuffer buffer; /* gives the allocation its requirements (dedicated) */
    VkDeviceMemory memory;
} gl_vkmem_allocation;

/* GPGPU_GL_VULKAN_MEMORY: 0 never, "all" every library buffer (tests),
 * otherwise (default) buffers of at least GL_VKMEM_MIN_BYTES. */
static size_t min_bytes(void)
{
    const char *v = getenv("GPGPU_GL_VULKAN_MEMORY");
    if (v && strcmp(v, "0") == 0)
        return SIZE_MAX;
    if (v && strcmp(v, "all") == 0)
        return 1;
    return GL_VKMEM_MIN_BYTES;
}

static void close_vk(gl_vkmem *vm)
{
    if (vm->device)
        vkDestroyDevice(vm->device, NULL);
    if (vm->instance)
        vkDestroyInstance(vm->instance, NULL);
    free(vm);
}

/* A Vulkan device on the GPU of the current GL context, or NULL. */
static gl_vkmem *open_vk(const GladGLContext *gl)
{
    if (!gl->EXT_memory_object || !gl->EXT_memory_object_fd)
        return NULL;
    GLubyte uuid[GL_UUID_SIZE_EXT] = {0};
    gl->GetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, uuid);
    if (gl->GetError() != GL_NO_ERROR)
        return NULL;
    gl_vkmem *vm = calloc(1, sizeof *vm);
    if (!vm)
        return NULL;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "libgpgpu (GL buffer memory)",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app};
    if (vkCreateInstance(&ici, NULL, &vm->instance) != VK_SUCCESS) {
        vm->instance = VK_NULL_HANDLE;
        close_vk(vm);
        return NULL;
    }
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(vm->instance, &n, NULL);
    VkPhysicalDevice *pds = n ? calloc(n, sizeof *pds) : NULL;
    if (pds && vkEnumeratePhysicalDevices(vm->instance, &n, pds) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !vm->physical; i++) {
            VkPhysicalDeviceIDProperties id = {.sType =
                                                   VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
            VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                             .pNext = &id};
            vkGetPhysicalDeviceProperties2(pds[i], &p);
            if (p.properties.apiVersion >= VK_API_VERSION_1_1 &&
                memcmp(id.deviceUUID, uuid, VK_UUID_SIZE) == 0 &&
                vk_has_device_extension(pds[i], VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
                vm->physical = pds[i];
        }
    free(pds);
    if (!vm->physical) {
        close_vk(vm);
        return NULL;
    }
    /* No queue is used; one must be asked for. */
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                     .queueFamilyIndex = 0,
                                     .queueCount = 1,
                                     .pQueuePriorities = &priority};
    const char *ext = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &queue,
                              .enabledExtensionCount = 1,
                              .ppEnabledExtensionNames = &ext};
    if (vkCreateDevice(vm->physical, &dci, NULL, &vm->device) != VK_SUCCESS) {
        vm->device = VK_NULL_HANDLE;
        close_vk(vm);
        return NULL;
    }
    vm->get_memory_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(vm->device, "vkGetMemoryFdKHR");
    if (!vm->get_memory_fd) {
        close_vk(vm);
        return NULL;
    }
    return vm;
}

/* Device-local, and not host-visible where the device has such a type
 * (host-visible device memory is the small BAR window on some GPUs). */
static bool pick_memory_type(VkPhysicalDevice pd, uint32_t allowed, uint32_t *out)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
            VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
            if ((allowed >> i & 1u) && (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
                (pass == 1 || !(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))) {
                *out = i;
                return true;
            }
        }
    return false;
}

static void free_allocation(gl_vkmem *vm, gl_vkmem_allocation *a)
{
    if (a->buffer)
        vkDestroyBuffer(vm->device, a->buffer, NULL);
    if (a->memory)
        vkFreeMemory(vm->device, a->memory, NULL);
    free(a);
}

/* Exportable memory for a buffer of `bytes`, dedicated to it (as the
 * Vulkan backend's large buffers are), and its file descriptor. */
static gl_vkmem_allocation *allocate(gl_vkmem *vm, size_t bytes, VkDeviceSize *size, int *fd)
{
    gl_vkmem_allocation *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    VkExternalMemoryBufferCreateInfo ext = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .pNext = &ext,
                              .size = bytes,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    if (vkCreateBuffer(vm->device, &bci, NULL, &a->buffer) != VK_SUCCESS) {
        a->buffer = VK_NULL_HANDLE;
        free_allocation(vm, a);
        return NULL;
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(vm->device, a->buffer, &req);
    uint32_t type;
    if (!pick_memory_type(vm->physical, req.memoryTypeBits, &type)) {
        free_allocation(vm, a);
        return NULL;
    }
    VkMemoryDedicatedAllocateInfo dedicated = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, .buffer = a->buffer};
    VkExportMemoryAllocateInfo export = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                         .pNext = &dedicated,
                                         .handleTypes =
                                             VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = &export,
                                .allocationSize = req.size,
                                .memoryTypeIndex = type};
    if (vkAllocateMemory(vm->device, &mai, NULL, &a->memory) != VK_SUCCESS) {
        a->memory = VK_NULL_HANDLE;
        free_allocation(vm, a);
        return NULL;
    }
    VkMemoryGetFdInfoKHR get = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                .memory = a->memory,
                                .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    *fd = -1;
    if (vm->get_memory_fd(vm->device, &get, fd) != VK_SUCCESS || *fd < 0) {
        free_allocation(vm, a);
        return NULL;
    }
    *size = req.size;
    return a;
}

/* Undoes a failed import; the failure is not the call's (its buffer falls
 * back to GL's own storage), so a debug message it caused is dropped too. */
static bool give_up(gl_state *st, gl_vkmem *vm, gl_vkmem_allocation *a, GLuint memory, GLuint name)
{
    if (name)
        st->gl.DeleteBuffers(1, &name);
    st->gl.DeleteMemoryObjectsEXT(1, &memory);
    free_allocation(vm, a);
    while (st->gl.GetError() != GL_NO_ERROR)
        ;
    st->debug->message[0] = '\0';
    return false;
}

bool gl_vkmem_wanted(const gl_state *st, size_t bytes)
{
    return bytes >= min_bytes() && st->vkmem != NULL;
}

bool gl_vkmem_buffer_create(gl_state *st, gl_buffer *b, size_t bytes)
{
    if (bytes < min_bytes())
        return false;
    if (!st->vkmem_tried) {
        st->vkmem_tried = true;
        st->vkmem = open_vk(&st->gl);
    }
    gl_vkmem *vm = st->vkmem;
    if (!vm)
        return false;
    const GladGLContext *gl = &st->gl;
    VkDeviceSize size = 0;
    int fd = -1;
    gl_vkmem_allocation *a = allocate(vm, bytes, &size, &fd);
    if (!a)
        return false;
    GLuint memory = 0, name = 0;
    gl->CreateMemoryObjectsEXT(1, &memory);
    GLint yes = GL_TRUE;
    gl->MemoryObjectParameterivEXT(memory, GL_DEDICATED_MEMORY_OBJECT_EXT, &yes);
    gl->ImportMemoryFdEXT(memory, size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
    if (gl->GetError() != GL_NO_ERROR) { /* a successful import would own fd */
        close(fd);
        return give_up(st, vm, a, memory, 0);
    }
    gl->CreateBuffers(1, &name);
    gl->NamedBufferStorageMemEXT(name, (GLsizeiptr)bytes, memory, 0);
    if (gl->GetError() != GL_NO_ERROR)
        return give_up(st, vm, a, memory, name);
    b->name = name;
    b->memory_object = memory;
    b->vk_allocation = a;
    return true;
}

void gl_vkmem_buffer_destroy(gl_state *st, gl_buffer *b, bool with_gl)
{
    /* The import holds its own reference to the memory: Vulkan's handle can
     * go at once, while GL's work on the buffer may still be running. */
    if (with_gl) {
        st->gl.DeleteBuffers(1, &b->name);
        st->gl.DeleteMemoryObjectsEXT(1, &b->memory_object);
    }
    free_allocation(st->vkmem, b->vk_allocation);
    b->memory_object = 0;
    b->vk_allocation = NULL;
}

void gl_vkmem_close(gl_state *st)
{
    if (st->vkmem)
        close_vk(st->vkmem);
    st->vkmem = NULL;
    st->vkmem_tried = false;
}

#else /* no Vulkan: GL's own buffers only */

bool gl_vkmem_wanted(const gl_state *st, size_t bytes)
{
    (void)st;
    (void)bytes;
    return false;
}

bool gl_vkmem_buffer_create(gl_state *st, gl_buffer *b, size_t bytes)
{
    (void)st;
    (void)b;
    (void)bytes;
    return false;
}

void gl_vkmem_buffer_destroy(gl_state *st, gl_buffer *b, bool with_gl)
{
    (void)st;
    (void)b;
    (void)with_gl;
}

void gl_vkmem_close(gl_state *st) { (void)st; }

#endif
