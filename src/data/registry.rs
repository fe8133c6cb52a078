//! The dataset registry: every file's origin, size and pinned SHA-256.
//!
//! Generated once from the verbatim copies under `shared/traces/` (sizes and SHA-256 computed from
//! them) and the source commits named in their READMEs; edit by hand when a dataset changes.
//! Where a README gives only an abbreviated commit id, the URL uses it (GitHub resolves
//! abbreviated ids in raw URLs; not checked from the offline machine that made this table).

use super::{Archive, DataFile, Dataset, Origin};

/// Origin archive (unpinned: the archive itself was never available to hash).
static ITP_RAW_ARCHIVE: Archive = Archive {
    file_name: "elasticflow-traces-277ed24-raw-traces.tar.gz",
    url: "https://raw.githubusercontent.com/microsoft/elasticflow-traces/277ed24d0e908c31a1c98145819e2e3853d8ac00/data/raw-traces.tar.gz",
    sha256: None,
};

/// Origin archive (unpinned: the archive itself was never available to hash).
static ELASTICFLOW_TRACES_ARCHIVE: Archive = Archive {
    file_name: "elasticflow-traces-277ed24-elasticflow-traces.tar.gz",
    url: "https://raw.githubusercontent.com/microsoft/elasticflow-traces/277ed24d0e908c31a1c98145819e2e3853d8ac00/data/elasticflow-traces.tar.gz",
    sha256: None,
};

/// All datasets, in `blox data list` order.
pub(super) static DATASETS: &[Dataset] = &[
    Dataset {
        name: "philly",
        description: "Microsoft Philly job table as processed by Pollux: 82,247 jobs (timestamp, duration, num_gpus, gpu_time, VC)",
        source: "github.com/petuum/adaptdl @ c793c70 (branch osdi21-artifact), simulator/traces/philly.csv",
        license: "Apache-2.0 (petuum/adaptdl); underlying Philly trace CC-BY-4.0",
        citation: "Jeon et al., \"Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training Workloads\", USENIX ATC'19",
        mirror_dir: "philly",
        files: &[DataFile {
            path: "pollux_philly.csv",
            size: 3444496,
            sha256: "ebffb3dd1589bdf4e7bcd74496201c5ded1d557d498ee14f560463f37ec353da",
            origin: Origin::Url(
                "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/philly.csv",
            ),
        }],
    },
    Dataset {
        name: "pollux-workloads",
        description: "Pollux's eight 160-job workloads sampled from the Philly table over 8-hour windows (name, time, application, num_replicas, batch_size)",
        source: "github.com/petuum/adaptdl @ c793c70 (branch osdi21-artifact), simulator/workloads/",
        license: "Apache-2.0 (petuum/adaptdl); underlying Philly trace CC-BY-4.0",
        citation: "Qiao et al., \"Pollux: Co-adaptive Cluster Scheduling for Goodput-Optimized Deep Learning\", OSDI'21",
        mirror_dir: "philly",
        files: &[
            DataFile {
                path: "pollux_workloads/workload-1.csv",
                size: 4770,
                sha256: "0bff9c3a36b52c7025484b666d788001b1478cc4d84be409ca04b28f58f9d162",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads/workload-1.csv",
                ),
            },
            DataFile {
                path: "pollux_workloads/workload-2.csv",
                size: 4855,
                sha256: "83bec266667ec209a202c10975ab321e52eb4989e5ba420d18003ed03cf15c4e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads/workload-2.csv",
                ),
            },
            DataFile {
                path: "pollux_workloads/workload-3.csv",
                size: 4691,
                sha256: "d76d5d1e3f9143b5453083de5c7a4c6576e884b41e86434a624b08f2c4277dc0",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads/workload-3.csv",
                ),
            },
            DataFile {
                path: "pollux_workloads/workload-4.csv",
                size: 4760,
                sha256: "22c400f59637ba0fc2c9be3b491f67e0765d1bf33d0a57d76101d770e4443f21",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads/workload-4.csv",
                ),
            },
            DataFile {
                path: "pollux_workloads/workload-5.csv",
                size: 4664,
                sha256: "4761ea418f2cb618f79e1dcfc003d24de2810ec8d0af2ecf8895690d088c3930",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads/workload-5.csv",
                ),
            },
            DataFile {
                path: "pollux_workloads/workload-6.csv",
                size: 4821,
                sha256: "d6517c4d57c72e4f362f9e99f285e4f7fee0348913287033f11f02f5cb88f074",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads/workload-6.csv",
                ),
            },
            DataFile {
                path: "pollux_workloads/workload-7.csv",
                size: 4757,
                sha256: "fd29e99deef2c9edb758b431f3a04f896251a0ff6fb443567fb27580239462d5",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads/workload-7.csv",
                ),
            },
            DataFile {
                path: "pollux_workloads/workload-8.csv",
                size: 4847,
                sha256: "13618461b7dd45974f77dbf8354aa2a5bf5e6e04b15dbc783b174e111816774d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads/workload-8.csv",
                ),
            },
        ],
    },
    Dataset {
        name: "pollux-workloads-load",
        description: "Pollux's relative-job-load workloads of Figure 8a: 80, 240 and 320 jobs (0.5x, 1.5x, 2.0x) sampled like the 160-job ones, eight files each",
        source: "github.com/petuum/adaptdl @ c793c70 (branch osdi21-artifact), simulator/workloads-{0.5,1.5,2.0}/",
        license: "Apache-2.0 (petuum/adaptdl); underlying Philly trace CC-BY-4.0",
        citation: "Qiao et al., \"Pollux: Co-adaptive Cluster Scheduling for Goodput-Optimized Deep Learning\", OSDI'21",
        mirror_dir: "pollux",
        files: &[
            DataFile {
                path: "workloads-0.5/workload-1.csv",
                size: 2377,
                sha256: "a6841fa6624dff2c97cb782ed327579abc6f8a92e5bb1a7b9fc2ae959ba3e031",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-0.5/workload-1.csv",
                ),
            },
            DataFile {
                path: "workloads-0.5/workload-2.csv",
                size: 2379,
                sha256: "c5a228514e4f04da81f645a8982b3105bad90255df2b212a2a9e2a50ee3bdd13",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-0.5/workload-2.csv",
                ),
            },
            DataFile {
                path: "workloads-0.5/workload-3.csv",
                size: 2294,
                sha256: "0f3fe5026593ac9ccfe53264aea43ca5bea4558c94ed7c24458d27777b4ecd09",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-0.5/workload-3.csv",
                ),
            },
            DataFile {
                path: "workloads-0.5/workload-4.csv",
                size: 2358,
                sha256: "191ac04670b3a0be0e8708be43c491575def671b1e97f90b683d1ca07196c0be",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-0.5/workload-4.csv",
                ),
            },
            DataFile {
                path: "workloads-0.5/workload-5.csv",
                size: 2347,
                sha256: "1461d258a07d73d1e520fde7629a0491bba5061173766f00018910c0a2bc52e1",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-0.5/workload-5.csv",
                ),
            },
            DataFile {
                path: "workloads-0.5/workload-6.csv",
                size: 2378,
                sha256: "53f036c5fbc8bb09e7c99430f48a56b55705133570d06e8707fc151a629b6818",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-0.5/workload-6.csv",
                ),
            },
            DataFile {
                path: "workloads-0.5/workload-7.csv",
                size: 2392,
                sha256: "82651f96823a0a4de2141eca23e8caed277dc983ec2e77f6f7b74077de29143e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-0.5/workload-7.csv",
                ),
            },
            DataFile {
                path: "workloads-0.5/workload-8.csv",
                size: 2444,
                sha256: "90903fa71a1a4cc6f6e607de3c7d30144a4cbb85c9f82b5fa525e20553e21b1a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-0.5/workload-8.csv",
                ),
            },
            DataFile {
                path: "workloads-1.5/workload-1.csv",
                size: 7146,
                sha256: "082f831a947aa2428ffc5b9970d3e7913b416ebfe88670cbe957241e7f554669",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-1.5/workload-1.csv",
                ),
            },
            DataFile {
                path: "workloads-1.5/workload-2.csv",
                size: 7261,
                sha256: "ba363652c279a0693e4545e64f0b154fcdc8684518bfcaa405c28c914ed18334",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-1.5/workload-2.csv",
                ),
            },
            DataFile {
                path: "workloads-1.5/workload-3.csv",
                size: 7152,
                sha256: "f316b3a525c2e0189919fb8bdf2f48e6e1e8bfaf41e93efecfc0747cc218344f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-1.5/workload-3.csv",
                ),
            },
            DataFile {
                path: "workloads-1.5/workload-4.csv",
                size: 7184,
                sha256: "6549ea49a95f04defa60697dfb519cf219a85a4c1650d05c98d3f320485cf470",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-1.5/workload-4.csv",
                ),
            },
            DataFile {
                path: "workloads-1.5/workload-5.csv",
                size: 7090,
                sha256: "5cf460da9530389fc3b98a93f6b2bb59c8c17690ba29dc6d1faff61d652a184c",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-1.5/workload-5.csv",
                ),
            },
            DataFile {
                path: "workloads-1.5/workload-6.csv",
                size: 7307,
                sha256: "06484c082431651b8009500aac30fa14c34682750104dfc5484405e8976f8717",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-1.5/workload-6.csv",
                ),
            },
            DataFile {
                path: "workloads-1.5/workload-7.csv",
                size: 7136,
                sha256: "5a4e07c34a8d54860d094327b2a11efe345e6c1345a893f06c5f7c92cbfccef9",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-1.5/workload-7.csv",
                ),
            },
            DataFile {
                path: "workloads-1.5/workload-8.csv",
                size: 7278,
                sha256: "0e4fdee04f2c959043d8a08942e94e685d00618c7cb42fe85c045b7938cea066",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-1.5/workload-8.csv",
                ),
            },
            DataFile {
                path: "workloads-2.0/workload-1.csv",
                size: 9553,
                sha256: "742bb5600c91a27a6e2551731da8117eea7e29a344e588fbdf16db396ff43540",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-2.0/workload-1.csv",
                ),
            },
            DataFile {
                path: "workloads-2.0/workload-2.csv",
                size: 9615,
                sha256: "ed716ed457eee37d0e7f0d47f50093fad2b8569da9172685f7de73f450c662dc",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-2.0/workload-2.csv",
                ),
            },
            DataFile {
                path: "workloads-2.0/workload-3.csv",
                size: 9538,
                sha256: "9c30fbfacd66f9bd761cf99d3f97dead71d7e308764fd0a4d5abe227a6f1138f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-2.0/workload-3.csv",
                ),
            },
            DataFile {
                path: "workloads-2.0/workload-4.csv",
                size: 9573,
                sha256: "f5b61d0dd6c012f3bc7ca7af35ef326d27991b805d6b2406e6203572eed6aa7f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-2.0/workload-4.csv",
                ),
            },
            DataFile {
                path: "workloads-2.0/workload-5.csv",
                size: 9484,
                sha256: "afb0e048871bbf3635f5c5738d328c1a86935dc771af15c0c17ac2be53d16caf",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-2.0/workload-5.csv",
                ),
            },
            DataFile {
                path: "workloads-2.0/workload-6.csv",
                size: 9749,
                sha256: "097ad709dddd64dcf9b305c6249ecece562e271b54d3be05f4cb8a3196535d5f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-2.0/workload-6.csv",
                ),
            },
            DataFile {
                path: "workloads-2.0/workload-7.csv",
                size: 9512,
                sha256: "e3843a1cfca7ab660cf1dcdbcc9147f89df45ca699a1eb2a5fdd0d52d454df1a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-2.0/workload-7.csv",
                ),
            },
            DataFile {
                path: "workloads-2.0/workload-8.csv",
                size: 9704,
                sha256: "80e836a01f76b9605820c07c07928bf913e7aa8a38d627579a60b798d7873ec3",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/workloads-2.0/workload-8.csv",
                ),
            },
        ],
    },
    Dataset {
        name: "pollux-profiles",
        description: "Pollux's measured job profiles of six models (bert, cifar10, deepspeech2, imagenet, ncf, yolov3): step times per placement and per-GPU batch, scalability beyond 4 nodes, gradient statistics per epoch and batch size",
        source: "github.com/petuum/adaptdl @ c793c70 (branch osdi21-artifact), simulator/traces/",
        license: "Apache-2.0 (petuum/adaptdl)",
        citation: "Qiao et al., \"Pollux: Co-adaptive Cluster Scheduling for Goodput-Optimized Deep Learning\", OSDI'21",
        mirror_dir: "pollux",
        files: &[
            DataFile {
                path: "traces/bert/placements.csv",
                size: 24089,
                sha256: "982811b611bc8447a078289939a2ccafc1f76c06e1e8ebcc4f4866a8e8fcdc0f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/bert/placements.csv",
                ),
            },
            DataFile {
                path: "traces/bert/scalability.csv",
                size: 8209,
                sha256: "d3fac874d45f501b8126cd1a5238f9f53eec4a1ac17cc1a5133f1a17fc891943",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/bert/scalability.csv",
                ),
            },
            DataFile {
                path: "traces/bert/validation-12.csv",
                size: 180,
                sha256: "15e8df62086ac566259601e30b23502fc265de4b529be53c7bbd088181127469",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/bert/validation-12.csv",
                ),
            },
            DataFile {
                path: "traces/bert/validation-24.csv",
                size: 200,
                sha256: "87beb34e1f4d1540e70c4ca35540e8b32a76cd9824af759b8704f4c0333461c9",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/bert/validation-24.csv",
                ),
            },
            DataFile {
                path: "traces/bert/validation-48.csv",
                size: 199,
                sha256: "0c647322cdbb0ed25975b903f1161e5dec1b17a6658b38c551e9ff81c543a1bc",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/bert/validation-48.csv",
                ),
            },
            DataFile {
                path: "traces/bert/validation-96.csv",
                size: 201,
                sha256: "a6f2f1e37f2b6817385635ab309bf151223ee8ba1fc0e847514f9eed6f0ae666",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/bert/validation-96.csv",
                ),
            },
            DataFile {
                path: "traces/bert/validation-192.csv",
                size: 200,
                sha256: "1570e36c3dd6fdc2a9dfc44194f21d8e875ac6838d9fa0909e4470b165cc305f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/bert/validation-192.csv",
                ),
            },
            DataFile {
                path: "traces/bert/validation-384.csv",
                size: 198,
                sha256: "1d2305fb7fa10e52df6509110f3e9d84a369125fd9fdbef1d4ef9217fbc14594",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/bert/validation-384.csv",
                ),
            },
            DataFile {
                path: "traces/cifar10/placements.csv",
                size: 56641,
                sha256: "e77d1d8781e2e48c3952580bdf705f3be4f27cbbdcd0a2087eb152224a271b6b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/cifar10/placements.csv",
                ),
            },
            DataFile {
                path: "traces/cifar10/scalability.csv",
                size: 15998,
                sha256: "d4bd0dd8ab0df8ce76bbd788b210637dd204937cd4a18f112577f2a812634152",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/cifar10/scalability.csv",
                ),
            },
            DataFile {
                path: "traces/cifar10/validation-128.csv",
                size: 5935,
                sha256: "3e44736464924617d8d90f30c1e356d3dd384075a76f8755e2b10a86935b94f4",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/cifar10/validation-128.csv",
                ),
            },
            DataFile {
                path: "traces/cifar10/validation-256.csv",
                size: 7049,
                sha256: "3108d4af00743ec9355816d22d4c55c22ed115736b4bffd140626da90975c26d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/cifar10/validation-256.csv",
                ),
            },
            DataFile {
                path: "traces/cifar10/validation-512.csv",
                size: 7026,
                sha256: "912a21991c9d9a3fc3c1fb56db7042b61a6ce43c4d8bf01e8dbe87f3298408dc",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/cifar10/validation-512.csv",
                ),
            },
            DataFile {
                path: "traces/cifar10/validation-1024.csv",
                size: 7036,
                sha256: "65ca500dbb2dad19d655dc3ebf37c4433bb3c64dc12df04cf695f82e626e9fb3",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/cifar10/validation-1024.csv",
                ),
            },
            DataFile {
                path: "traces/cifar10/validation-2048.csv",
                size: 7043,
                sha256: "d661d023fe48a926a3b16c8a4822e44e0a6686671ec87944cbe99ac6d56e495a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/cifar10/validation-2048.csv",
                ),
            },
            DataFile {
                path: "traces/cifar10/validation-4096.csv",
                size: 7009,
                sha256: "ef38514818005468c6fbfb14378bc63798b5fe5b978386f5cbd549c14c0318df",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/cifar10/validation-4096.csv",
                ),
            },
            DataFile {
                path: "traces/deepspeech2/placements.csv",
                size: 34500,
                sha256: "0908c53bfc20123ad60ad6c4984cfcdf53a623773f4e44e9f01d58305e5379b7",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/deepspeech2/placements.csv",
                ),
            },
            DataFile {
                path: "traces/deepspeech2/scalability.csv",
                size: 9233,
                sha256: "d49ed2ecb5f3b3f1204ef2200eb8a0f36e373830ae54833e2318085f7d237316",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/deepspeech2/scalability.csv",
                ),
            },
            DataFile {
                path: "traces/deepspeech2/validation-20.csv",
                size: 5788,
                sha256: "d0443954cf20c15453ce308637ab10b8a618e741b35de49e0cd94f9510cf7235",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/deepspeech2/validation-20.csv",
                ),
            },
            DataFile {
                path: "traces/deepspeech2/validation-40.csv",
                size: 6856,
                sha256: "6e99c6d45d3ccd649de5e95a4f6354863a233ee0f4ee957464e13ff83ae9ef73",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/deepspeech2/validation-40.csv",
                ),
            },
            DataFile {
                path: "traces/deepspeech2/validation-80.csv",
                size: 6865,
                sha256: "f70e1e0afd4d5941cf0693bfe97a7144534665d45287a2553e59e7c26d6a199f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/deepspeech2/validation-80.csv",
                ),
            },
            DataFile {
                path: "traces/deepspeech2/validation-160.csv",
                size: 6848,
                sha256: "0b0fb04b5902b3f86e39ac61ee3c20014c627b2903d51add69a791d56dd1d295",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/deepspeech2/validation-160.csv",
                ),
            },
            DataFile {
                path: "traces/deepspeech2/validation-320.csv",
                size: 6815,
                sha256: "27b366d74f1ded22a1c8b92e8e706dd6e450d38e02df31eb64c2a31ead80218b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/deepspeech2/validation-320.csv",
                ),
            },
            DataFile {
                path: "traces/deepspeech2/validation-640.csv",
                size: 6742,
                sha256: "f9d5c82ea5c9ce2805f31731c030b48addf4fdb4fa8c53da5071bc51ac500273",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/deepspeech2/validation-640.csv",
                ),
            },
            DataFile {
                path: "traces/imagenet/placements.csv",
                size: 40702,
                sha256: "ac3d88937f40680c367ec83c7610eda088b8d60806e15cf3a4699fa1d15cb1e8",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/imagenet/placements.csv",
                ),
            },
            DataFile {
                path: "traces/imagenet/scalability.csv",
                size: 13715,
                sha256: "ca4970f3461c816237daaa4f37635cf07e78ee7a78df87788543b6e7b094e681",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/imagenet/scalability.csv",
                ),
            },
            DataFile {
                path: "traces/imagenet/validation-200.csv",
                size: 5555,
                sha256: "99359b5af430cf196b55c40c0c5578fca5d5d1acae4cd025a9f9731f97411eb6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/imagenet/validation-200.csv",
                ),
            },
            DataFile {
                path: "traces/imagenet/validation-400.csv",
                size: 6416,
                sha256: "bbb41eff31eff5882bda761e5f221e6a74d46325eccda0594ab125a60d422a47",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/imagenet/validation-400.csv",
                ),
            },
            DataFile {
                path: "traces/imagenet/validation-800.csv",
                size: 6393,
                sha256: "c5ab8a1797d45d7910ba4d47fa7c8753ddd3a06337f57f0c0cc04943b11d786e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/imagenet/validation-800.csv",
                ),
            },
            DataFile {
                path: "traces/imagenet/validation-1600.csv",
                size: 6346,
                sha256: "60f4fbfa9547101d6c2825a335444f1ad7bb1dea5fde1ccfdbd480e16cc2b5f5",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/imagenet/validation-1600.csv",
                ),
            },
            DataFile {
                path: "traces/imagenet/validation-3200.csv",
                size: 6380,
                sha256: "17a818be4b5edf0116c9d2c184dcd32959fc545ef9fbd0cf7cc4ea1584fb25fa",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/imagenet/validation-3200.csv",
                ),
            },
            DataFile {
                path: "traces/imagenet/validation-6400.csv",
                size: 7372,
                sha256: "d143c22f513df9cfd67f1b9390312f3fdb444517f979cd39ca7998b11897bb07",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/imagenet/validation-6400.csv",
                ),
            },
            DataFile {
                path: "traces/imagenet/validation-12800.csv",
                size: 6342,
                sha256: "a5c85cf1b036da68742d34ea094884ea2d0c6007b1c64b8593a380a31a7c09e0",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/imagenet/validation-12800.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/placements.csv",
                size: 82769,
                sha256: "012f861bd2acc57f5f7d09c7878082905ba0150660b9f5aeae9291d025527874",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/placements.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/scalability.csv",
                size: 23047,
                sha256: "2c773498098fbaedbbb90d21b1b765876896b7ec0a37b543bbdcbf0ef7f066a4",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/scalability.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/validation-256.csv",
                size: 753,
                sha256: "871f600508647b03faff1a0c7d3c244bacf614ec38ddea978270080e3bc3e677",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/validation-256.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/validation-512.csv",
                size: 837,
                sha256: "736cf15f524872b9888602fcd8caa45491e6ecdc1cf44d1043e5ccf965d3f1e6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/validation-512.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/validation-1024.csv",
                size: 845,
                sha256: "ca09ed956b3d18301c5c41d45f16bb252f5a901362bf8864083c33641e521576",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/validation-1024.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/validation-2048.csv",
                size: 838,
                sha256: "981525ec55b4e75e1d147a3905df775d7ca19a727667adb8f0734faf04e9b260",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/validation-2048.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/validation-4096.csv",
                size: 833,
                sha256: "5bef39a3f41e9989fa216ed3cc6d4aab91b807e6a4615ee08ee0fdce93820207",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/validation-4096.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/validation-8192.csv",
                size: 837,
                sha256: "452f1aca238528cae73da4c256c1e0531feea2576d82688b101bbc13117e422d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/validation-8192.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/validation-16384.csv",
                size: 834,
                sha256: "2935f9fd96a2eae03956630e285871301dfffbe1aa2ba714a0f0b996f30c6a93",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/validation-16384.csv",
                ),
            },
            DataFile {
                path: "traces/ncf/validation-32768.csv",
                size: 828,
                sha256: "0adc7d68f257cabb455ece1801293595f83c9e82182b7ca1eb8879082a5bacb5",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/ncf/validation-32768.csv",
                ),
            },
            DataFile {
                path: "traces/yolov3/placements.csv",
                size: 24146,
                sha256: "6ffceb8996e3fd57e47e550fdffc21eec7d7e34de1d806d8b3568734eaec0013",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/yolov3/placements.csv",
                ),
            },
            DataFile {
                path: "traces/yolov3/scalability.csv",
                size: 4923,
                sha256: "feb460a4afaa48073fbd3387b7aa610b414166b0e68ff66d4374a73ed4b930bc",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/yolov3/scalability.csv",
                ),
            },
            DataFile {
                path: "traces/yolov3/validation-8.csv",
                size: 3535,
                sha256: "6ff47809c183dd819dd3f306f36ec61e8b038a5c0a1b7de1b9b348573f6ce3eb",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/yolov3/validation-8.csv",
                ),
            },
            DataFile {
                path: "traces/yolov3/validation-16.csv",
                size: 4039,
                sha256: "f3bde37fff505ffa0c27af97945fdc853df0ab83e458c432d9b2ed3239475c18",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/yolov3/validation-16.csv",
                ),
            },
            DataFile {
                path: "traces/yolov3/validation-32.csv",
                size: 4027,
                sha256: "036c637a7ead92774bfcfcc58f7331b194a3d324a5383c3cb40a3097b6183013",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/yolov3/validation-32.csv",
                ),
            },
            DataFile {
                path: "traces/yolov3/validation-64.csv",
                size: 4002,
                sha256: "89186e4d07fa08cd3b6ab0c04dcad12ef686da6419c9f72f5fdf67eb5e7df5b9",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/yolov3/validation-64.csv",
                ),
            },
            DataFile {
                path: "traces/yolov3/validation-128.csv",
                size: 3985,
                sha256: "fc191f65adc5f766ceefcdc915b8a56fb236be98053d94dd55b0b4d4ae356ba0",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/yolov3/validation-128.csv",
                ),
            },
            DataFile {
                path: "traces/yolov3/validation-256.csv",
                size: 3977,
                sha256: "1c3d0ce8f98a541d7ca7fea90907b36615289271e124b97890dd5697feeae66c",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/yolov3/validation-256.csv",
                ),
            },
            DataFile {
                path: "traces/yolov3/validation-512.csv",
                size: 3976,
                sha256: "3f5f626de33f5de5e503fe8b1a2c3d85e47e30507e2b22a5abd69fbdf00e3b9a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/petuum/adaptdl/c793c7089bd307462686339d29707925c461f9a9/simulator/traces/yolov3/validation-512.csv",
                ),
            },
        ],
    },
    Dataset {
        name: "itp-raw",
        description: "Microsoft ITP raw job traces, 10 clusters, 69,351 jobs, 2021-03..05 (job_id, submission_time, duration, num_gpu)",
        source: "github.com/microsoft/elasticflow-traces @ 277ed24, data/raw-traces.tar.gz",
        license: "MIT (microsoft/elasticflow-traces)",
        citation: "Gu et al., \"ElasticFlow: An Elastic Serverless Training Platform for Distributed Deep Learning\", ASPLOS'23",
        mirror_dir: "elasticflow-itp",
        files: &[
            DataFile {
                path: "LICENSE",
                size: 1162,
                sha256: "9906940f61b1f0b533fa7d99baf55178b2808fbe113ea51dfbfad8572ccd5f2b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/microsoft/elasticflow-traces/277ed24d0e908c31a1c98145819e2e3853d8ac00/LICENSE",
                ),
            },
            DataFile {
                path: "raw/cluster01.csv",
                size: 83726,
                sha256: "27d707f576fce5637f9efec43f610da3d335f36e3c6fd4ded2f5bccfce05974a",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster01.csv" },
            },
            DataFile {
                path: "raw/cluster02.csv",
                size: 301866,
                sha256: "7a5849e73aff9f9bc33f87c9bacadf8aab2f3a9e7bc5d70956f5cbf40126526c",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster02.csv" },
            },
            DataFile {
                path: "raw/cluster03.csv",
                size: 158198,
                sha256: "282d765c5289ab0ba870f494dd2c67893f9d16d726fdc8a51f13b7412515dbf8",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster03.csv" },
            },
            DataFile {
                path: "raw/cluster04.csv",
                size: 825103,
                sha256: "247850e4265f35749e98d15e82a67765301e81272334265f1fe60d65787892a9",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster04.csv" },
            },
            DataFile {
                path: "raw/cluster05.csv",
                size: 189032,
                sha256: "1553359ddd673a0ffc531ca10e73ba729dbacbce905ce878dbb8499d2dbed0fb",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster05.csv" },
            },
            DataFile {
                path: "raw/cluster06.csv",
                size: 125228,
                sha256: "52c0d9247d1de9b19a8bdafc25137daf6fa04f274ad3a2eb6dac51226ac2362e",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster06.csv" },
            },
            DataFile {
                path: "raw/cluster07.csv",
                size: 662831,
                sha256: "d4f46f32e2965c2265b2675c070565a86e40bff45733c828c5767bc0b8c1b318",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster07.csv" },
            },
            DataFile {
                path: "raw/cluster08.csv",
                size: 682210,
                sha256: "d60c20d0cd05ddf49fddffabbc784ba6177bbc1a762fc5cf8a0bc9056b084db8",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster08.csv" },
            },
            DataFile {
                path: "raw/cluster09.csv",
                size: 586203,
                sha256: "da4047d6f09cc41709ff85937c82e31f6a6791c896d22e241ae9e1dc7f82bcfd",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster09.csv" },
            },
            DataFile {
                path: "raw/cluster10.csv",
                size: 13689,
                sha256: "139abea485b52090f5950d0f28d82878169df408e36052ec5c7cd04a3f3fcfa7",
                origin: Origin::ArchiveMember { archive: &ITP_RAW_ARCHIVE, member: "cluster10.csv" },
            },
        ],
    },
    Dataset {
        name: "elasticflow-traces",
        description: "ElasticFlow's ITP-generated traces with model, iterations, deadline and batch size: 195-job testbed trace and the 10 cluster traces of Fig 8b",
        source: "github.com/microsoft/elasticflow-traces @ 277ed24, data/elasticflow-traces.tar.gz",
        license: "MIT (microsoft/elasticflow-traces)",
        citation: "Gu et al., \"ElasticFlow: An Elastic Serverless Training Platform for Distributed Deep Learning\", ASPLOS'23",
        mirror_dir: "elasticflow",
        files: &[
            DataFile {
                path: "itp-generated/LICENSE",
                size: 1162,
                sha256: "9906940f61b1f0b533fa7d99baf55178b2808fbe113ea51dfbfad8572ccd5f2b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/microsoft/elasticflow-traces/277ed24d0e908c31a1c98145819e2e3853d8ac00/LICENSE",
                ),
            },
            DataFile {
                path: "itp-generated/195job.csv",
                size: 15353,
                sha256: "80eb7ae03ba5b19cbe9aa7ee68cf93ee438495b48aa18e414c83bdd8a400e5fb",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "195job.csv" },
            },
            DataFile {
                path: "itp-generated/cluster01.csv",
                size: 124466,
                sha256: "599c2b80cea7b3d4784cc058981cf5f1238ce999b2e3a49b04c579884b7de1fb",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster01.csv" },
            },
            DataFile {
                path: "itp-generated/cluster02.csv",
                size: 448370,
                sha256: "40c46447fb4738b4d2bf7e94be6e627803eabe161260bb702338e0c3680de2e5",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster02.csv" },
            },
            DataFile {
                path: "itp-generated/cluster03.csv",
                size: 236391,
                sha256: "c8ddeebae6a586b4c3d9f0de6b7ec3ee20505bbc14b2f31ce7562f6a7e40b83f",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster03.csv" },
            },
            DataFile {
                path: "itp-generated/cluster04.csv",
                size: 1226442,
                sha256: "b999cbdb8a773b58ff26dc9e982025a8096b8ee866a464cec1a7e1f222ce0572",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster04.csv" },
            },
            DataFile {
                path: "itp-generated/cluster05.csv",
                size: 280405,
                sha256: "10be53b70dca805233da5fd8d66a6d6939f215dc3ceff1d277de6ef98d5761bd",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster05.csv" },
            },
            DataFile {
                path: "itp-generated/cluster06.csv",
                size: 186566,
                sha256: "36442e0b06ced83bb15fea18b362b402b65443129663c45207105506911ef140",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster06.csv" },
            },
            DataFile {
                path: "itp-generated/cluster07.csv",
                size: 985220,
                sha256: "e0fa937ebfab3f6ed8b0d44addf3b3b4dbfced93c3f078eda09f4e22307616af",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster07.csv" },
            },
            DataFile {
                path: "itp-generated/cluster08.csv",
                size: 1010275,
                sha256: "deac8ab3f9710f1af298ffd92d8a0322467cdcf56c45fcc01f2cd8c039906f7d",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster08.csv" },
            },
            DataFile {
                path: "itp-generated/cluster09.csv",
                size: 867984,
                sha256: "ca5e83a973c0c104afb8a61c5b8c42d2e501b6b26fd8d7525d2349358c04f3c8",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster09.csv" },
            },
            DataFile {
                path: "itp-generated/cluster10.csv",
                size: 20400,
                sha256: "e54ba1d74228d02d77cce1f6b0120e5b50e784e7c278a2d2434431fba1b0f2eb",
                origin: Origin::ArchiveMember { archive: &ELASTICFLOW_TRACES_ARCHIVE, member: "cluster10.csv" },
            },
        ],
    },
    Dataset {
        name: "elasticflow-artifact",
        description: "ElasticFlow artifact: Fig 8 traces, cluster specs, A100/T4 throughput tables, the Fig 10 trace and its checked-in result logs",
        source: "github.com/gudiandian/ElasticFlow-artifact @ b3f5ea4 (ElasticFlow/scheduler/, ElasticFlow/traces_for_ElasticFlow/, plot_figure/logs/figure10/)",
        license: "Apache-2.0 (gudiandian/ElasticFlow-artifact)",
        citation: "Gu et al., \"ElasticFlow: An Elastic Serverless Training Platform for Distributed Deep Learning\", ASPLOS'23",
        mirror_dir: "elasticflow",
        files: &[
            DataFile {
                path: "artifact/LICENSE",
                size: 11336,
                sha256: "525bcac8394c7ecd3847fc92758edb5cafaae6acf103379e4a540a6f64f2e066",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/LICENCE",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n128g8.csv",
                size: 85,
                sha256: "1f1851b037c71886eceb3ed2c0e51feb93deef83a83bc6ff0e93e65507821180",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n128g8.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n160g8.csv",
                size: 84,
                sha256: "fce43270fc374e465862a062b3dc90fde93c2bd98800adb5e1b4efae7cfa5abe",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n160g8.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n16g4.csv",
                size: 83,
                sha256: "1c25df7b9c0ff9f66130acb4ada64e87900167fa161c4d0043e43038a25c962a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n16g4.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n16g8.csv",
                size: 83,
                sha256: "af9543c1cbdb5ad297fe42ca5a1d932f37703b70dd689d3f61606d715fb913dc",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n16g8.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n1g1.csv",
                size: 83,
                sha256: "c398ed644b3a30df6a8949e7882709b81de98cc76f0a557055002f7dc9cac994",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n1g1.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n1g2.csv",
                size: 83,
                sha256: "54c53cbaefcb979f08a6efec1ab1d828d290b69dd5833986e9edef906db94a9f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n1g2.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n1g4.csv",
                size: 83,
                sha256: "c0e2448b1228fc470474cb8df943589a38dea4ca9f439f386ee33bf9f7a16f27",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n1g4.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n1g8.csv",
                size: 85,
                sha256: "7950434522047532ec82d9e449747185f3d69a966ada2b9fcf65232826e679e8",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n1g8.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n256g8.csv",
                size: 83,
                sha256: "a4aee773acf4b1707a75b5813a5a5d314776c4374c58e7f3e07cec066347d817",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n256g8.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n2g2.csv",
                size: 82,
                sha256: "ec0ecdc1da57775e15fae66a8a0375d0e3df09bd89f88de939f1349773c3cbb1",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n2g2.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n32g4.csv",
                size: 83,
                sha256: "ca71313259ebdaad478afbe118b0dc92d5c1c59b2463f8500aa540dd92e77144",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n32g4.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n32g8.csv",
                size: 84,
                sha256: "3a544d9ae109697f9323bf94bee300c2f6c8470c3cd0cf88699bdbe2387ac0f6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n32g8.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n48g8.csv",
                size: 84,
                sha256: "d7da3558acc3ea6b31d04d4da2c1933d6b3fe1afe1e127770cc9ee57b3dbe113",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n48g8.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n4g8.csv",
                size: 82,
                sha256: "91c41b8c9678dd9084135bb5834bad21894dba81bc5e25e227452d8a2f085b5f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n4g8.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n64g8.csv",
                size: 83,
                sha256: "3942923e55789a803eddd88b55209e327fe92102bb7f21eb8420e1aa1f25ca89",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n64g8.csv",
                ),
            },
            DataFile {
                path: "artifact/cluster_specs/n8g8.csv",
                size: 83,
                sha256: "51dc9199d09d55b6fcd8e47d3c53e6da00a02a19db1a913c61d2151a3bc6a1f0",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/cluster_specs/n8g8.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_A100/bert.csv",
                size: 296,
                sha256: "7a0a81e8570b2474d4cab330a93b20830228170bfea0c8a12319300b7cae9dc7",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_A100/bert.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_A100/deepspeech2.csv",
                size: 284,
                sha256: "9971817f583d5dfe45d1409dd4db2976b5657bbb8964d1e929cdcb715d06743e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_A100/deepspeech2.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_A100/gpt2.csv",
                size: 303,
                sha256: "a461033925114e094d87532fa4e5242339d3ac79ac2f23e756d201d9dde6957a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_A100/gpt2.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_A100/inception3.csv",
                size: 302,
                sha256: "a0da7a84eeea61d4ffd07bd47d7ecda44d20e661f2d197033c65b5d0d9de32e9",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_A100/inception3.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_A100/resnet50.csv",
                size: 439,
                sha256: "d28dff1b5c85c76590686c8fdb1124c0001db421376e3a5627c1c94853096fd5",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_A100/resnet50.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_A100/resnet50_cifar10.csv",
                size: 282,
                sha256: "fd2778b32fd31e4dbdbb42bd77d3d0ebca761f758b0bbfed39416070c59d1f0e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_A100/resnet50_cifar10.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_A100/vgg16.csv",
                size: 433,
                sha256: "b536b3a532b26f2a60982a57282c58a0c4b7712958179a1c3ec1869851ea530d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_A100/vgg16.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_T4/bert.csv",
                size: 179,
                sha256: "167d6080720a28c35dba312761aefaafbbed9a2ab6b073cb5bc63ff8055ba518",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_T4/bert.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_T4/cifar10.csv",
                size: 302,
                sha256: "ddac86c6934f02d975f18e6c7e218d9a55ac2a43055cab16219902fed036f4a2",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_T4/cifar10.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_T4/deepspeech2.csv",
                size: 304,
                sha256: "104bbec207bb8a5c8756b8bb93add3f75033bee79070c9f8f73ecb2d149b430d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_T4/deepspeech2.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_T4/imagenet.csv",
                size: 319,
                sha256: "e5d7d80c92046826f9e63aeeb3ae5d72ed076c75361f000248f3dccf75d4029b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_T4/imagenet.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_T4/ncf.csv",
                size: 170,
                sha256: "7018bb3767554bde917207136008897117cd9cdf43ecb4ec5d30070502593e30",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_T4/ncf.csv",
                ),
            },
            DataFile {
                path: "artifact/throughputs_T4/yolov3.csv",
                size: 143,
                sha256: "2aa3a81977b0a4791aa913bbb090b2f2d205ea49cf70e62a797d942b0a42491d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/scheduler/throughputs_T4/yolov3.csv",
                ),
            },
            DataFile {
                path: "artifact/traces/elasticVpollux_e.csv",
                size: 8732,
                sha256: "b904030b4426d480a9eca8a841f7f3a9f889edca7f55d85109bae0f36aafbd7f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/traces_for_ElasticFlow/elasticVpollux_e.csv",
                ),
            },
            DataFile {
                path: "artifact/traces/philly_103959.csv",
                size: 51054,
                sha256: "1ee30d2cc87e4161521c19dc7508945b90f9c5c0e10811eec9b804753657f792",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/traces_for_ElasticFlow/philly_103959.csv",
                ),
            },
            DataFile {
                path: "artifact/traces/resnet_cifar_trace.csv",
                size: 323,
                sha256: "c0ecea90eb139a0ae05fe77514c552bcfb60517dbd4cb8c5f46c00e527e9044e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/ElasticFlow/traces_for_ElasticFlow/resnet_cifar_trace.csv",
                ),
            },
            DataFile {
                path: "artifact/generated/100jobs_1500lam.csv",
                size: 4392,
                sha256: "0d9011c099fdd2977a88cb9d100d4259d6e2e4bd35ea38de7dab3c94acf1a5c5",
                origin: Origin::MirrorOnly(
                    "generated locally by ElasticFlow/trace_generator/generate_trace.py --num_jobs=100 --lam=1500 --min_ddl=1.5 --seed=1 (the Fig 10 input); the run scripts create it, the repository does not hold it",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/chronus/time-aware-with-lease_resource.csv",
                size: 139789,
                sha256: "35ab9c6641abb72a5080afed71b3b0ee231a2fd766d1e226e6738b8bd57b8412",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/chronus/time-aware-with-lease_resource.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/dlas-gpu/cluster.csv",
                size: 7264,
                sha256: "15be24db419a99fcf4ad77c0e889d758e62552f108efcf33fc78ea2fcf559700",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/dlas-gpu/cluster.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/dlas-gpu/cpu.csv",
                size: 2226,
                sha256: "65be1215cf0e6d48e773703519c0d21d608793b59694c4288a72779b291dae3e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/dlas-gpu/cpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/dlas-gpu/final_result.csv",
                size: 613,
                sha256: "7f44aaaa8b5aee9dac795019321f2ad956ec894b5e821a83b6a815ba08a57af2",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/dlas-gpu/final_result.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/dlas-gpu/gpu.csv",
                size: 2226,
                sha256: "62baf23ec203a3f5b1d680e1893bad1a393e72f1c4d296e25854445833bf6749",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/dlas-gpu/gpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/dlas-gpu/job.csv",
                size: 5894,
                sha256: "e1dc9694519163fa8939d324e2c29babd58c7e2ee7a0c106ecba7077ff34fab4",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/dlas-gpu/job.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/dlas-gpu/memory.csv",
                size: 24,
                sha256: "bc8d34dc2e85d1be7265a171679bad60130bff45f4b80cc2b2b7ed2436b1ddd6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/dlas-gpu/memory.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/dlas-gpu/network.csv",
                size: 2296,
                sha256: "6e89483fa125c8ef9112c604662752db15a687d3fe19e20c24752268cc55a3f5",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/dlas-gpu/network.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/dlas-gpu/scheduling_events.csv",
                size: 55215,
                sha256: "6817fb61de03db7b39cc094637debbe58e2c9155825b4440a6580b8686f503f7",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/dlas-gpu/scheduling_events.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/edf/cluster.csv",
                size: 4861,
                sha256: "c4b491ddbd68bf80864ac458deff4e9dca55b3f3e0bd2f11b910bc61404ecd0f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/edf/cluster.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/edf/cpu.csv",
                size: 1542,
                sha256: "41cc91819e7bff790e046caec09e809881d690220f891abf1356606686c2b43e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/edf/cpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/edf/final_result.csv",
                size: 699,
                sha256: "14ba3494b82415b5e8a1c3092e97c1d4a0cbf9c0c8911d8d12e9f1e921229011",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/edf/final_result.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/edf/gpu.csv",
                size: 1542,
                sha256: "0018c24d9de82172bb2f026c9b00f26a7d50148a66676e973f9291ff1e79c3c8",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/edf/gpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/edf/job.csv",
                size: 5961,
                sha256: "ef2db21a6f866bba82f2795847b05643876f445b31846eb8b78660dd5aa1d59c",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/edf/job.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/edf/memory.csv",
                size: 24,
                sha256: "bc8d34dc2e85d1be7265a171679bad60130bff45f4b80cc2b2b7ed2436b1ddd6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/edf/memory.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/edf/network.csv",
                size: 1612,
                sha256: "0d8a8148ea58b87f5f143ac71d7e63e543f58b4d16c5bf89421604df6ec13f8f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/edf/network.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/edf/scheduling_events.csv",
                size: 73438,
                sha256: "cf5fd3787594e817f45fb15cf7540305562d7658dfe1317f577a0688d4395b17",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/edf/scheduling_events.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/ef-accessctrl/cluster.csv",
                size: 92,
                sha256: "68cdeb9f3b49e49a116b12b472cabb27ee74b4d72abd4dbed55623e39be46d62",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/ef-accessctrl/cluster.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/ef-accessctrl/cpu.csv",
                size: 92,
                sha256: "0273562287eb12ed4c342714961fa60d7a6f7d93aedf80824842126ab0014415",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/ef-accessctrl/cpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/ef-accessctrl/final_result.csv",
                size: 638,
                sha256: "5eeca427a71dcdb468a776984d62bb91c0b065a675c51eca48c8d2b54ab5fe53",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/ef-accessctrl/final_result.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/ef-accessctrl/gpu.csv",
                size: 92,
                sha256: "61a276876938d3914e55a317bafb7e86fe5221c82054c3460c4b7b16027aff03",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/ef-accessctrl/gpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/ef-accessctrl/job.csv",
                size: 5903,
                sha256: "da02035004d665b96b53cec3ad595393d1a9c01384e68deaa6d6f549b5b4c810",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/ef-accessctrl/job.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/ef-accessctrl/memory.csv",
                size: 24,
                sha256: "bc8d34dc2e85d1be7265a171679bad60130bff45f4b80cc2b2b7ed2436b1ddd6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/ef-accessctrl/memory.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/ef-accessctrl/network.csv",
                size: 162,
                sha256: "3e856035abb3a909da7543c10e514fc2bd155c453e7e2a2d3dfb3c8a289a243d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/ef-accessctrl/network.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/ef-accessctrl/scheduling_events.csv",
                size: 69474,
                sha256: "6dc44bcd509edfbdf81272d4486a9a19b936e3bfc149dfbcbaa126b81550dfe2",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/ef-accessctrl/scheduling_events.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/gandiva/cluster.csv",
                size: 103329,
                sha256: "a1953d7ae330581248b1ade7fee6073edefaf21030eaf19a051c8b9aa1e0530e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/gandiva/cluster.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/gandiva/cpu.csv",
                size: 810,
                sha256: "ce180d8ff82434b31d008498aed79f5443dc3ff4b8b35fcd3010ab62086b4a48",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/gandiva/cpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/gandiva/final_result.csv",
                size: 833,
                sha256: "c4658458e7d39170b1b10a62ce62050e5a9d9c77c9980145bc84eafa192b6a88",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/gandiva/final_result.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/gandiva/gpu.csv",
                size: 810,
                sha256: "18126ef8f3341ef1cb00e55cee767303a1b7a1e3230e0a812ba5f63fc8a89408",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/gandiva/gpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/gandiva/job.csv",
                size: 6287,
                sha256: "630e72b1280fe768e2817045cfd9df3af705c902c01bba550f3c273d13e454d6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/gandiva/job.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/gandiva/memory.csv",
                size: 24,
                sha256: "bc8d34dc2e85d1be7265a171679bad60130bff45f4b80cc2b2b7ed2436b1ddd6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/gandiva/memory.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/gandiva/network.csv",
                size: 880,
                sha256: "c5659c33269ca63c7d847eefe0054480c999962aa3e496a8239d240ce399909a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/gandiva/network.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/gandiva/scheduling_events.csv",
                size: 451370,
                sha256: "129403773abcf4559326fee3e0692a30f9ea436a305684fbac4a4a9840eea97a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/gandiva/scheduling_events.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/themis/cluster.csv",
                size: 76654,
                sha256: "26c610a4b8d1251ed354c64dda85834083234179398dfc039209f24ed0ffe1d0",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/themis/cluster.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/themis/cpu.csv",
                size: 24266,
                sha256: "13031a496624d16438dbeea85d9c102334552fd6c8e31ea03d54add9d34593d5",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/themis/cpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/themis/final_result.csv",
                size: 608,
                sha256: "be3f810d0a1df9a2023ddff299ac23733622678f8737b3cb4cd7ed7b00b2508e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/themis/final_result.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/themis/gpu.csv",
                size: 24266,
                sha256: "7f85f24981d216ead2f545b354a65405d173ce25036231cc88d3f8803fb26ad3",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/themis/gpu.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/themis/job.csv",
                size: 8776,
                sha256: "586fb51c350e4d5c0fc16b56a8562bacd815a9fd5a045490878260bcbe64b368",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/themis/job.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/themis/memory.csv",
                size: 24,
                sha256: "bc8d34dc2e85d1be7265a171679bad60130bff45f4b80cc2b2b7ed2436b1ddd6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/themis/memory.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/themis/network.csv",
                size: 24336,
                sha256: "6a2936cbdc6280196a20c16a7ad660bcca8fee8ab82b83d9277c80e48d60297a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/themis/network.csv",
                ),
            },
            DataFile {
                path: "artifact/logs_figure10/themis/scheduling_events.csv",
                size: 567012,
                sha256: "f61b45a8b7a0d2a43d9fb8128d5314dd1a2df7003e29ad70ef03ef98c3d1881f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/gudiandian/ElasticFlow-artifact/b3f5ea4/plot_figure/logs/figure10/themis/scheduling_events.csv",
                ),
            },
        ],
    },
    Dataset {
        name: "alibaba-2023",
        description: "Alibaba cluster-trace-gpu-v2023: 8,152-pod default pod list and the GPU/all node lists (1,213 / 1,523 nodes)",
        source: "github.com/alibaba/clusterdata @ 7a6c496, cluster-trace-gpu-v2023/csv/",
        license: "no license file in the folder; the repository asks for use for study or research purposes",
        citation: "Weng et al., \"Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent\", USENIX ATC'23",
        mirror_dir: "alibaba-gpu-v2023",
        files: &[
            DataFile {
                path: "openb_node_list_all_node.csv",
                size: 52287,
                sha256: "5a85c2af79c66a1efff8bbcbda430400aae56d8431370d738480967e1a9c6b15",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/alibaba/clusterdata/7a6c496/cluster-trace-gpu-v2023/csv/openb_node_list_all_node.csv",
                ),
            },
            DataFile {
                path: "openb_node_list_gpu_node.csv",
                size: 42353,
                sha256: "2beca64b4d3dfa342036a34b56a495c6cef9225db836c81f541282cb1df320b5",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/alibaba/clusterdata/7a6c496/cluster-trace-gpu-v2023/csv/openb_node_list_gpu_node.csv",
                ),
            },
            DataFile {
                path: "openb_pod_list_default.csv",
                size: 575468,
                sha256: "1ee7ed79c27a3b0861cda8ddba86a004c6aba904caafa329a76ae93ca63834a8",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/alibaba/clusterdata/7a6c496/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv",
                ),
            },
        ],
    },
    Dataset {
        name: "muri",
        description: "Muri's Philly-derived traces with per-stage resource times (simulator traces 1-4, zero-arrival and model-mix variants, 400-job testbed trace), cluster specs and testbed results",
        source: "github.com/Rivendile/Muri @ 4e69a78, simulator/ and cluster_exp/",
        license: "Apache-2.0 (Rivendile/Muri)",
        citation: "Zhao et al., \"Multi-Resource Interleaving for Deep Learning Training\", SIGCOMM'22",
        mirror_dir: "muri",
        files: &[
            DataFile {
                path: "simulator/trace1.csv",
                size: 97574,
                sha256: "534d02a4ebe53aee1f60d3fb33e3b2207550bb28813e677c962051058ebafbc5",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/trace1.csv",
                ),
            },
            DataFile {
                path: "simulator/trace1_pr.csv",
                size: 84097,
                sha256: "dfa7a6b0f5ff6fe4aae4e51a948f05bc229d1883a779e9721f181b7270190945",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/trace1_pr.csv",
                ),
            },
            DataFile {
                path: "simulator/trace2.csv",
                size: 374400,
                sha256: "5c29e1c49ed7929bff67c8008e6f2abcafc64e70bb55cdc91801490ce2df7003",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/trace2.csv",
                ),
            },
            DataFile {
                path: "simulator/trace2_pr.csv",
                size: 322682,
                sha256: "de6449be0dcb9f48006a01eefb509f2845df8916b432672420bfb303a96f395e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/trace2_pr.csv",
                ),
            },
            DataFile {
                path: "simulator/trace3.csv",
                size: 63755,
                sha256: "fc8d59783486122d9f522b430c1d5a59fbee119b41feb67a3f67e0751340ce93",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/trace3.csv",
                ),
            },
            DataFile {
                path: "simulator/trace3_pr.csv",
                size: 54912,
                sha256: "af45628e89017a4faf20e75c586320643c08a5dd4f2f952502c6fcb25aba5e6c",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/trace3_pr.csv",
                ),
            },
            DataFile {
                path: "simulator/trace4.csv",
                size: 167691,
                sha256: "69754a0fc95b75de47923eb755d81b4cd7f8df37d82f007f870881e12470f0d1",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/trace4.csv",
                ),
            },
            DataFile {
                path: "simulator/trace4_pr.csv",
                size: 144279,
                sha256: "affc099b308b8425852aa4dd20661506a3261f63a3b793ff174f65c7935b6acc",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/trace4_pr.csv",
                ),
            },
            DataFile {
                path: "simulator/job_type_1.csv",
                size: 61308,
                sha256: "f30e5e32bd698dc3dfd07ebc90a99edcc809f130d489cdfe8bf23be52982b271",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/job_type_1.csv",
                ),
            },
            DataFile {
                path: "simulator/job_type_2.csv",
                size: 61454,
                sha256: "a1bcc3019aa3cc3544de558a46e7155fb27ad98aaddb6b8d2854979ac20409f0",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/job_type_2.csv",
                ),
            },
            DataFile {
                path: "simulator/job_type_3.csv",
                size: 64983,
                sha256: "863c459ccf69be70122e7c5d90e67c3291d6cc38ba91e75ee9b3ddacd315bb5a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/job_type_3.csv",
                ),
            },
            DataFile {
                path: "simulator/job_type_4.csv",
                size: 63755,
                sha256: "fc8d59783486122d9f522b430c1d5a59fbee119b41feb67a3f67e0751340ce93",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/trace-data/job_type_4.csv",
                ),
            },
            DataFile {
                path: "simulator/cluster_spec_n8g8.csv",
                size: 82,
                sha256: "3a3ae49716a8027296e2cf523ed180b6e78feca30ba985e42739002c00b18742",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/simulator/cluster_spec/n8g8.csv",
                ),
            },
            DataFile {
                path: "cluster_exp/cluster_trace.csv",
                size: 25642,
                sha256: "fe73b5e39c75ea73b3115d1d4fc7b19e482f7db13c1256a0756bf54bdc3befef",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/trace-data/cluster_trace.csv",
                ),
            },
            DataFile {
                path: "cluster_exp/cluster_spec_n1g8.csv",
                size: 85,
                sha256: "63c9d9f7892d6fc0970247a470b609e45c85781f6a8ab819a481f2f42bf6f8fe",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/cluster_specs/n1g8.csv",
                ),
            },
            DataFile {
                path: "cluster_exp/cluster_spec_n2g8.csv",
                size: 85,
                sha256: "a62a26d2047eea83169b109fff32a830aec06f5a607398bdb0859bb6366d9317",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/cluster_specs/n2g8.csv",
                ),
            },
            DataFile {
                path: "cluster_exp/cluster_spec_n4g8.csv",
                size: 82,
                sha256: "0b711d3bd6c2538d894cfacdd783cb69724f2693bb49b5fe43a442cdfd05a6e0",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/cluster_specs/n4g8.csv",
                ),
            },
            DataFile {
                path: "cluster_exp/cluster_spec_n8g8.csv",
                size: 83,
                sha256: "ac6e933dd766b1fce223ae8c6971c10b01ce9d681bdac042fdbb8b1e5ca8ebec",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/cluster_specs/n8g8.csv",
                ),
            },
            DataFile {
                path: "cluster_exp/result_Muri-L.out",
                size: 92,
                sha256: "68f75ea9f6640839e97fdb841ddc48918ae85d9666b0b06c5cbffb17b65793ce",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/results/Muri-L/result.out",
                ),
            },
            DataFile {
                path: "cluster_exp/result_Muri-S.out",
                size: 91,
                sha256: "2b6dda4c714608a51702e80ad82c5f94ec45c3fdc686a0f820f6884421e07a8e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/results/Muri-S/result.out",
                ),
            },
            DataFile {
                path: "cluster_exp/result_SRSF.out",
                size: 92,
                sha256: "f230305bf9083b297308a9dc21ae2124d3f8b47595d237ffba8bd7c932422b9b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/results/SRSF/result.out",
                ),
            },
            DataFile {
                path: "cluster_exp/result_SRTF.out",
                size: 92,
                sha256: "adbdc3cb771d91c57c592df90e3315e349eb6d5e51ad2156493a5a1d8dbea8d7",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/results/SRTF/result.out",
                ),
            },
            DataFile {
                path: "cluster_exp/result_themis.out",
                size: 92,
                sha256: "1eefdbba5a6ce02ae25db63635c95373253666f99ab4e4ac269b1aabb4c436fc",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/results/themis/result.out",
                ),
            },
            DataFile {
                path: "cluster_exp/result_tiresias.out",
                size: 92,
                sha256: "414d888ba446f0d58855caea5c38e84d4b9b6e89fd8e1e36074aa75696573901",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/Rivendile/Muri/4e69a78ce75f629a5a00abd48150a1860b341ce6/cluster_exp/results/tiresias/result.out",
                ),
            },
        ],
    },
    Dataset {
        name: "gavel-throughputs",
        description: "Gavel throughput tables (simulation and physical cluster; K80/P100/V100, isolated and space-shared) and the Philly (duration, GPUs) distribution",
        source: "github.com/stanford-futuredata/gavel @ c4fa400, scheduler/",
        license: "MIT (stanford-futuredata/gavel)",
        citation: "Narayanan et al., \"Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning Workloads\", OSDI'20",
        mirror_dir: "gavel",
        files: &[
            DataFile {
                path: "physical_cluster_throughputs.json",
                size: 1240159,
                sha256: "4b5acfe389951edf734df26caf5bbaacbbba2df60e340758c4ed220cd65f963c",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/physical_cluster_throughputs.json",
                ),
            },
            DataFile {
                path: "simulation_throughputs.json",
                size: 1240176,
                sha256: "17111f7295f03265fd9e5118d7eba31e3dd9d6e50a2e215c13ad3d3f91f74381",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/simulation_throughputs.json",
                ),
            },
            DataFile {
                path: "philly_job_distribution.csv",
                size: 311594,
                sha256: "a233b9e4ffb267279b1d6e3f5b1b00cd0b4211299c04d21eb88e44a25c5cb12c",
                origin: Origin::MirrorOnly(
                    "converted 1:1 to CSV from scheduler/philly_job_distribution.pickle, which the origin holds only as a Python pickle",
                ),
            },
        ],
    },
    Dataset {
        name: "gavel-traces",
        description: "Gavel job traces: 15 per-Philly-VC traces (seed 0) with cluster specs, and the physical-cluster traces",
        source: "github.com/stanford-futuredata/gavel @ c4fa400, scheduler/traces/",
        license: "MIT (stanford-futuredata/gavel)",
        citation: "Narayanan et al., \"Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning Workloads\", OSDI'20",
        mirror_dir: "gavel",
        files: &[
            DataFile {
                path: "traces_msr_seed0/0e4a51.trace",
                size: 224104,
                sha256: "952a5ca0842149b7a0f2cbfd072acb0f97765f05ef829b4ab71db0752ef08d00",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/0e4a51.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/103959.trace",
                size: 186671,
                sha256: "993c5d59d0b7447597e252b900670356623bda10dad0a4487588e3d839523442",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/103959.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/11cb48.trace",
                size: 378432,
                sha256: "21785530a830116cbfde74aaff23ac14f71396888453f388b5caeaf3695102ca",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/11cb48.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/23dbec.trace",
                size: 1688,
                sha256: "5e77c69605651395c7610f85678205709009d401a299ae16b5af47f7f04c2714",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/23dbec.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/2869ce.trace",
                size: 100966,
                sha256: "f2ea5209f8d8d2844aefc2ffc0cd9e7e08a53ec0c3f8bbe9d6f336e29d93fa3c",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/2869ce.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/51b7ef.trace",
                size: 3398,
                sha256: "56dfc3e66adbdf48f65db0881e4f31d7e81e8555fdaef6380605d011512e503f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/51b7ef.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/6214e9.trace",
                size: 378201,
                sha256: "4deab594cec0d1400347e2c1e58998c197075b084b7473990d561c0e838f662d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/6214e9.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/6c71a0.trace",
                size: 378457,
                sha256: "dfd3ae4c9b4d886b2146ed41b6adc9f0105e21ecda3bff33459844c232b18f0e",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/6c71a0.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/795a4c.trace",
                size: 596,
                sha256: "52a95b1f5b9bda0bd0bec1fd35d3ef04dd50d6da091b99bfed7296bc13cabab8",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/795a4c.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/7f04ca.trace",
                size: 184431,
                sha256: "e999948ee9c399c0c2cd247ecd6d057309e9939004af4d57fe92c213882e1647",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/7f04ca.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/925e2b.trace",
                size: 786,
                sha256: "8964aed38ba3a5e88addfc6402d3dc215b0693227cd89204c801815a7c92e833",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/925e2b.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/b436b2.trace",
                size: 377167,
                sha256: "36d7d8e239846e7d7423b729ae174cc5e3f42bde46245ae08650da8800887317",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/b436b2.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/e13805.trace",
                size: 114754,
                sha256: "76a5d2119774f81f1107091833fb18039faed8618cd7829cbf5829f74231fe2d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/e13805.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/ed69ec.trace",
                size: 179642,
                sha256: "498b1cdae5247e842e6d6875fe7fecde8ab28ceb1bb4525bb1f25f37f9241597",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/ed69ec.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/ee9e8c.trace",
                size: 379404,
                sha256: "ce629ae806113d60daa51dd9423030333a1abf45ee2a51c1013cdfdc49782a5c",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/seed=0/ee9e8c.trace",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/cluster_specs.json",
                size: 30,
                sha256: "d6cb409ea1547a8e041bd2c3e3c07b45cb22b72084123a4d16661b97eff18f1f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/cluster_specs.json",
                ),
            },
            DataFile {
                path: "traces_msr_seed0/cluster_specs_heterogeneous.json",
                size: 34,
                sha256: "8900f8d74ca2e9b9d358a6847c9d01572d7ef59ba67d5a1c9c8f6bacbc1c44ad",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/msr/cluster_specs_heterogeneous.json",
                ),
            },
            DataFile {
                path: "traces_physical_cluster/artifact_evaluation.trace",
                size: 2154,
                sha256: "aa267474f78f61ef65ec26585957e7737e0f2f8cba7e5425d7e52e26146d15b6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/physical_cluster/artifact_evaluation.trace",
                ),
            },
            DataFile {
                path: "traces_physical_cluster/debug.trace",
                size: 1918,
                sha256: "995884b79a7d529bfaba24a5281081d519e17f11c534d936a14497951377c0c6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/physical_cluster/debug.trace",
                ),
            },
            DataFile {
                path: "traces_physical_cluster/debug_v2.trace",
                size: 1910,
                sha256: "250e279e3aa79fe9633c121f7bc8519322cd294fc866243253912258c7dd3a76",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/physical_cluster/debug_v2.trace",
                ),
            },
            DataFile {
                path: "traces_physical_cluster/highmem_test.trace",
                size: 1074,
                sha256: "29507c1f06047505f0177374ab9a0a749be6094dc72e6ed484f025eabe13547f",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/physical_cluster/highmem_test.trace",
                ),
            },
            DataFile {
                path: "traces_physical_cluster/max_min_fairness.trace",
                size: 14458,
                sha256: "dc13589c23c7b77d37d3d1014ff499e0c1ffca2959ce35d0e4ce70b71247424b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/physical_cluster/max_min_fairness.trace",
                ),
            },
            DataFile {
                path: "traces_physical_cluster/medium_test.trace",
                size: 2908,
                sha256: "161ebef0f499a83bb00899a30f1701b533ddb47fd29cbd0ff1058b6c46daa5ff",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/physical_cluster/medium_test.trace",
                ),
            },
            DataFile {
                path: "traces_physical_cluster/minimize_makespan.trace",
                size: 14099,
                sha256: "b00befc3fc2a62c1776fd70d978065e3fb1ae75fd06b37557f2425fe51556bc5",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/physical_cluster/minimize_makespan.trace",
                ),
            },
            DataFile {
                path: "traces_physical_cluster/small_test.trace",
                size: 2860,
                sha256: "1a216a80d1f40bc2b88a3edb5f14ff687560024c085a6392613618a47cbe54dc",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c/scheduler/traces/physical_cluster/small_test.trace",
                ),
            },
        ],
    },
    Dataset {
        name: "helios-venus-slice",
        description: "A real 1,867-job slice of SenseTime Helios Venus (two VCs, September 2020) and the per-cluster Helios summary",
        source: "github.com/felivalencia3/mini-compute-simulator @ ce41673 (tests/validation_traces/); github.com/S-Lab-System-Group/HeliosArtifact @ bdaae10 (analysis/)",
        license: "Helios data CC-BY-4.0; mini-compute-simulator Apache-2.0; HeliosArtifact MIT",
        citation: "Hu et al., \"Characterization and Prediction of Deep Learning Workloads in Large-Scale GPU Datacenters\", SC'21",
        mirror_dir: "helios",
        files: &[
            DataFile {
                path: "helios_venus_2vc_sept.csv",
                size: 126923,
                sha256: "15c4738f1e1da88bafc66fdb823f9455db18d89276aeb0dea2f70ab93ceae117",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/felivalencia3/mini-compute-simulator/ce41673/tests/validation_traces/helios_venus_2vc_sept.csv",
                ),
            },
            DataFile {
                path: "helios_cluster_summary.csv",
                size: 1319,
                sha256: "9cfbef77bdcfab43e0ffbc886e9d8ca8ac0dd16528945c52d76693179a6122f6",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/S-Lab-System-Group/HeliosArtifact/bdaae10/analysis/1_compare%20with%20Philly%20trace/helios_cluster_summary.csv",
                ),
            },
        ],
    },
    Dataset {
        name: "sia-saturn-workloads",
        description: "Sia's ten 160-job Pollux-format workloads sampled from the Helios Saturn trace",
        source: "github.com/siasosp23/artifacts @ aaf7a0d, sia-simulator/workloads/saturn/",
        license: "no license file in the repository; Helios data CC-BY-4.0",
        citation: "Jayaram Subramanya et al., \"Sia: Heterogeneity-aware, goodput-optimized ML-cluster scheduling\", SOSP'23",
        mirror_dir: "helios",
        files: &[
            DataFile {
                path: "sia_saturn_workloads/workload-1.csv",
                size: 5564,
                sha256: "0ff89480a7183132b4c40e5853aa632da93a9eee204ea6432a0b46b31615c6ed",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-1.csv",
                ),
            },
            DataFile {
                path: "sia_saturn_workloads/workload-10.csv",
                size: 5577,
                sha256: "f7e7d15ddeeaa7198566cded7d0cca528a506e8e503d21bbb0d20c409163b11a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-10.csv",
                ),
            },
            DataFile {
                path: "sia_saturn_workloads/workload-2.csv",
                size: 5533,
                sha256: "cb0fe646907b3862bb418f42d4d52f0a84ab206336ef43a889eb3b730beda1b3",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-2.csv",
                ),
            },
            DataFile {
                path: "sia_saturn_workloads/workload-3.csv",
                size: 5532,
                sha256: "54820fdfd9228b4ec39ee50aa9fd22bcd8681cf9cd411b6cf056ad7a8357ee0c",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-3.csv",
                ),
            },
            DataFile {
                path: "sia_saturn_workloads/workload-4.csv",
                size: 5568,
                sha256: "9cfcb6d8f692d24b10a50cb1777f5ff2e2020062a5d5f7431dff1cf78dc3e722",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-4.csv",
                ),
            },
            DataFile {
                path: "sia_saturn_workloads/workload-5.csv",
                size: 5563,
                sha256: "af385c618966addcba138629e5f23ca381b5ef0b087b3c20caead351be4116cb",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-5.csv",
                ),
            },
            DataFile {
                path: "sia_saturn_workloads/workload-6.csv",
                size: 5546,
                sha256: "a41ca5f26a49e91c35c59db89e326c9489afe9a21e14f260985ac373adf8fae8",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-6.csv",
                ),
            },
            DataFile {
                path: "sia_saturn_workloads/workload-7.csv",
                size: 5499,
                sha256: "216825bca384a97dd10ef46b25c2b14c78c0e3f31c958f40175b00421d764b72",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-7.csv",
                ),
            },
            DataFile {
                path: "sia_saturn_workloads/workload-8.csv",
                size: 5580,
                sha256: "9ea6fc2f1757655d5c0355d618780133cf1b330203c56007e44f171174b231fc",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-8.csv",
                ),
            },
            DataFile {
                path: "sia_saturn_workloads/workload-9.csv",
                size: 5559,
                sha256: "e81fd884d59ce1907a28170323241d8fbbaaddc9abd75d0ea4677711ae03d45b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/siasosp23/artifacts/aaf7a0d/sia-simulator/workloads/saturn/workload-9.csv",
                ),
            },
        ],
    },
    Dataset {
        name: "tiresias",
        description: "Tiresias simulator inputs: 60-job trace, YARN GPU-time distributions for the Gittins index, cluster specs",
        source: "github.com/SymbioticLab/Tiresias @ 959f9b0, simulator/",
        license: "Apache-2.0 (SymbioticLab/Tiresias)",
        citation: "Gu et al., \"Tiresias: A GPU Cluster Manager for Distributed Deep Learning\", NSDI'19",
        mirror_dir: "tiresias",
        files: &[
            DataFile {
                path: "LICENSE",
                size: 11357,
                sha256: "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4",
                origin: Origin::Url("https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/LICENSE"),
            },
            DataFile {
                path: "60_job.csv",
                size: 1871,
                sha256: "17575949a6e570960db42bc5576739de9c334ed4c664859841c4f01ede38bd1b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/60_job.csv",
                ),
            },
            DataFile {
                path: "cluster_spec.csv",
                size: 84,
                sha256: "58c1241b524064b2226012547eba1c9033f0820818c79b85e85a984c4d6b1867",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/cluster_spec.csv",
                ),
            },
            DataFile {
                path: "n160g8.csv",
                size: 84,
                sha256: "fce43270fc374e465862a062b3dc90fde93c2bd98800adb5e1b4efae7cfa5abe",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/n160g8.csv",
                ),
            },
            DataFile {
                path: "n1g4.csv",
                size: 83,
                sha256: "c0e2448b1228fc470474cb8df943589a38dea4ca9f439f386ee33bf9f7a16f27",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/n1g4.csv",
                ),
            },
            DataFile {
                path: "n256g8.csv",
                size: 83,
                sha256: "a4aee773acf4b1707a75b5813a5a5d314776c4374c58e7f3e07cec066347d817",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/n256g8.csv",
                ),
            },
            DataFile {
                path: "n32g4.csv",
                size: 83,
                sha256: "ca71313259ebdaad478afbe118b0dc92d5c1c59b2463f8500aa540dd92e77144",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/n32g4.csv",
                ),
            },
            DataFile {
                path: "tf_job.csv",
                size: 152,
                sha256: "6445d0131d71429ab2d6fbfb0972c9d925dddc8b618d1f05fc5b2941448a58ac",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/tf_job.csv",
                ),
            },
            DataFile {
                path: "yarn-gput1000.csv",
                size: 6066,
                sha256: "8c351e9c755207e5669b1db10abd4c993fbe5c230ea998c127be516b628c6c61",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/yarn-gput1000.csv",
                ),
            },
            DataFile {
                path: "yarn-gput10000.csv",
                size: 60490,
                sha256: "5452a607079d8637a0f7be3176c3cc6a9f33baa7c6980e79f4808087157b9b75",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/yarn-gput10000.csv",
                ),
            },
            DataFile {
                path: "yarn-gput5000.csv",
                size: 30255,
                sha256: "c68da2ecb0bd54c147dd42c0a1690ddd0f5f424ebad0b7666ea415fca2b5bf9d",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/SymbioticLab/Tiresias/959f9b0/simulator/yarn-gput5000.csv",
                ),
            },
        ],
    },
    Dataset {
        name: "synergy",
        description: "Synergy per-model CPU/memory sensitivity profiles and throughput matrix, cluster configs and deployment traces",
        source: "github.com/msr-fiddle/synergy @ 1bb2bed, simulator/",
        license: "MIT (msr-fiddle/synergy)",
        citation: "Mohan et al., \"Looking Beyond GPUs for DNN Scheduling on Multi-Tenant Clusters\", OSDI'22",
        mirror_dir: "synergy",
        files: &[
            DataFile {
                path: "configs/cluster_4.ini",
                size: 189,
                sha256: "c397ca5643d6d4c7f5d5209e228c8abcb5ae19c13e14a56bfcf4ba9a80d570cb",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/msr-fiddle/synergy/1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c/simulator/configs/cluster_4.ini",
                ),
            },
            DataFile {
                path: "configs/cluster_5.ini",
                size: 189,
                sha256: "4dea490638b69b3551b81e079afef807ba9e406681c1854f5b9b52861409e74a",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/msr-fiddle/synergy/1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c/simulator/configs/cluster_5.ini",
                ),
            },
            DataFile {
                path: "configs/cluster_6.ini",
                size: 189,
                sha256: "a8d3bb30728e85aa05a76dc86946c2d39e4ad912a0a3eccee488122511fc459b",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/msr-fiddle/synergy/1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c/simulator/configs/cluster_6.ini",
                ),
            },
            DataFile {
                path: "configs/default_cluster.ini",
                size: 189,
                sha256: "498a7f92efd4f08a3f7c1289b771ad3b0d13339c4e92a5956b66dea7af425529",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/msr-fiddle/synergy/1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c/simulator/configs/default_cluster.ini",
                ),
            },
            DataFile {
                path: "configs/deployment.ini",
                size: 187,
                sha256: "2fbc620681740b80ea4691943f7c0f628d068d3e486e61d49f325f34f524f657",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/msr-fiddle/synergy/1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c/simulator/configs/deployment.ini",
                ),
            },
            DataFile {
                path: "configs/philly_cluster.ini",
                size: 189,
                sha256: "704b00c45689968408005fbc00cc4c228626807db6a954581e0fad553003fcf0",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/msr-fiddle/synergy/1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c/simulator/configs/philly_cluster.ini",
                ),
            },
            DataFile {
                path: "configs/static_trace.ini",
                size: 188,
                sha256: "6d4cc6953bcda5782c7f3f7cdf6115e1560827077bc3aa7976a748cf525f4828",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/msr-fiddle/synergy/1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c/simulator/configs/static_trace.ini",
                ),
            },
            DataFile {
                path: "deploy_trace/static_100job_6_3_1100.0",
                size: 2480,
                sha256: "eb1ba6821efa27b26ab4bad91080feee8e0416b9c841f0e87925721c4a63f7a1",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/msr-fiddle/synergy/1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c/simulator/deploy_trace/static_100job_6_3_1100.0",
                ),
            },
            DataFile {
                path: "deploy_trace/dynamic_srtf.log",
                size: 2373,
                sha256: "c2ae34cd5cfe8e7638bc0d4207c70febf843bc66bbf3e61d9f100edb826e54b9",
                origin: Origin::Url(
                    "https://raw.githubusercontent.com/msr-fiddle/synergy/1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c/simulator/deploy_trace/dynamic/srtf.log",
                ),
            },
            DataFile {
                path: "model_profiles.csv",
                size: 2771,
                sha256: "ee461f836c5784abb92a27699b3ffbb639f9af11163971a3a9b05cae7efce6fd",
                origin: Origin::MirrorOnly(
                    "numeric constants transcribed to CSV from simulator/models*/<model>_1.py; the origin has no such file",
                ),
            },
            DataFile {
                path: "model_tput_matrix.csv",
                size: 18272,
                sha256: "e49d9a3511df96e9b7932ac81ba502fed335cf018f5210d68c6fb84ee8a15a0e",
                origin: Origin::MirrorOnly(
                    "numeric constants transcribed to CSV from simulator/models*/<model>_1.py; the origin has no such file",
                ),
            },
        ],
    },
];
