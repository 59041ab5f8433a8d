"""French and English text of the page, by key; the core's own messages come from its one table
(`ddpcore.base.words`)."""

from __future__ import annotations

from ddpcore.base.words import LANGS, say

from .facts import H200_PROBE
from .numbers import number, percent

__all__ = ["H200_EN", "TEXT", "pick_lang", "t"]


def _h200(lang: str) -> str:
    p = H200_PROBE
    if lang == "fr":
        return (
            f"Sur une {p.gpu}, nvidia-smi a lu {percent(p.spin_util, lang)} sur les {p.spin_samples} échantillons "
            f"pendant qu'un seul bloc de 32 threads tournait à vide sur un SM sur {p.sms} (Nsight Compute : SM "
            f"occupé à {percent(p.spin_sm_busy, lang, 2)}) ; il lisait aussi {percent(p.spin_util, lang)} pendant un "
            f"produit matriciel bf16 (mesure ddpcore, pilote {p.driver}, {p.date}, docs/measurements.md)."
        )
    return (
        f"On an {p.gpu}, nvidia-smi read {percent(p.spin_util, lang)} in all {p.spin_samples} samples while a "
        f"single block of 32 threads spun on one SM of {p.sms} (Nsight Compute: SM busy "
        f"{percent(p.spin_sm_busy, lang, 2)}); it read {percent(p.spin_util, lang)} for a bf16 matmul too (ddpcore "
        f"measurement, driver {p.driver}, {p.date}, docs/measurements.md)."
    )


H200_EN, H200_FR = _h200("en"), _h200("fr")

TEXT: dict[str, dict[str, str]] = {
    "title": {"en": "One step of data-parallel training", "fr": "Un pas d'entraînement data-parallèle"},
    "subtitle": {
        "en": "Ring AllReduce exchange by exchange, the barrier cost of a straggler, and why GPU utilization lies.",
        "fr": "Le ring AllReduce échange par échange, le coût d'un retardataire à la barrière, et pourquoi "
        "l'utilisation GPU ment.",
    },
    "loading": {"en": "Starting Python in your browser…", "fr": "Démarrage de Python dans le navigateur…"},
    "ready": {"en": "Live", "fr": "Prêt"},
    "python_error": {"en": "Python error", "fr": "Erreur Python"},
    "skip": {"en": "Skip to the diagram", "fr": "Aller au schéma"},
    "controls.title": {"en": "Controls", "fr": "Commandes"},
    "tab.step": {"en": "One step", "fr": "Un pas"},
    "tab.cluster": {"en": "Cluster scale", "fr": "À l'échelle du cluster"},
    "tab.traces": {"en": "Your traces", "fr": "Vos traces"},
    "tabs.label": {"en": "Views", "fr": "Vues"},
    "cluster.title": {
        "en": "What stragglers cost from 8 to 1,000,000 GPUs",
        "fr": "Ce que coûtent les retardataires, de 8 à 1 000 000 de GPU",
    },
    "cluster.controls": {"en": "Cluster model", "fr": "Modèle du cluster"},
    "cluster.gpus": {"en": "GPUs (N)", "fr": "GPU (N)"},
    "cluster.gpus_slider": {"en": "GPUs, logarithmic", "fr": "GPU, échelle logarithmique"},
    "cluster.cv": {"en": "Jitter (coefficient of variation)", "fr": "Gigue (coefficient de variation)"},
    "cluster.p": {"en": "P(rank straggles in a step)", "fr": "P(un rang ralentit sur un pas)"},
    "cluster.s": {"en": "Transient slowdown", "fr": "Ralentissement passager"},
    "cluster.k": {"en": "Persistent slow ranks", "fr": "Rangs lents persistants"},
    "cluster.ks": {"en": "Their slowdown", "fr": "Leur ralentissement"},
    "cluster.ar": {"en": "AllReduce algorithm", "fr": "Algorithme d'AllReduce"},
    "cluster.step": {"en": "Expected step", "fr": "Pas attendu"},
    "cluster.ideal": {"en": "Step without jitter or stragglers", "fr": "Pas sans gigue ni retardataire"},
    "cluster.p50": {"en": "Median step (p50)", "fr": "Pas médian (p50)"},
    "cluster.p99": {"en": "p99 step", "fr": "Pas p99"},
    "cluster.efficiency": {"en": "Efficiency", "fr": "Efficacité"},
    "cluster.p_any": {"en": "P(some rank straggles)", "fr": "P(au moins un rang ralentit)"},
    "cluster.hours": {"en": "GPU-hours lost per day", "fr": "Heures GPU perdues par jour"},
    "cluster.allreduce": {"en": "AllReduce", "fr": "AllReduce"},
    "cluster.timing_note": {
        "en": "Step timing from your traces: {compute} of compute per rank, and {other} for the rest of the step "
        "(its AllReduce included), held at every N.",
        "fr": "Durées du pas tirées de vos traces : {compute} de calcul par rang, et {other} pour le reste du pas "
        "(son AllReduce compris), gardées à tout N.",
    },
    "cluster.timing_off": {"en": "Use the model's own phases", "fr": "Revenir aux phases du modèle"},
    "cluster.axis_n": {"en": "GPUs (log scale)", "fr": "GPU (échelle log)"},
    "cluster.legend_eff": {"en": "efficiency (left axis)", "fr": "efficacité (axe de gauche)"},
    "cluster.legend_ring": {"en": "expected step, ring (right, log)", "fr": "pas attendu, anneau (droite, log)"},
    "cluster.legend_tree": {"en": "expected step, tree (right, log)", "fr": "pas attendu, arbre (droite, log)"},
    "cluster.plot_desc": {
        "en": "Efficiency and expected step time against the number of GPUs, from 8 to one million.",
        "fr": "Efficacité et durée attendue du pas selon le nombre de GPU, de 8 à un million.",
    },
    "cluster.help": {
        "en": "<b>Try</b> moving N from 8 to 100,000 with the default of one straggle in {one_in} rank-steps. "
        "<b>Notice</b> that an event that is rare for one rank becomes near certain for the step: at N = {one_in} the "
        "probability that some rank straggles is {p_any}, and the step runs at the straggler's pace most of the time. "
        "Jitter alone ({jitter}) already costs a few percent at scale, because the step waits for the maximum "
        "of N draws, "
        "not their mean. Then add one persistent slow rank: the whole cluster runs at its speed, whatever N.",
        "fr": "<b>Essayez</b> de faire passer N de 8 à 100 000 avec la valeur par défaut d'un ralentissement pour "
        "{one_in} pas-rangs. <b>Remarquez</b> qu'un événement rare pour un rang devient quasi certain pour le pas : à "
        "N = {one_in}, la probabilité qu'au moins un rang ralentisse est de {p_any}, et le pas avance le plus "
        "souvent au "
        "rythme du retardataire. La seule gigue ({jitter}) coûte déjà quelques pour cent à grande échelle, car le pas "
        "attend le maximum de N tirages, pas leur moyenne. Ajoutez ensuite un rang lent persistant : tout le cluster "
        "tourne à sa vitesse, quel que soit N.",
    },
    "cluster.notes_title": {"en": "Model and sources", "fr": "Modèle et sources"},
    "cluster.notes": {
        "en": "<ul><li>Per rank and step, compute time = (forward + backward) × lognormal jitter of mean 1 × a "
        "slowdown that hits with probability p; persistent ranks are always slowed. The step waits for the slowest "
        "rank: its distribution is computed exactly as the product of the per-rank CDFs (no rank is sampled); tests "
        "check it against a Monte Carlo that samples every rank.</li>"
        "<li>AllReduce time from the cost model: ring 2(N−1)(α + G/(Nβ)), tree 2⌈log₂N⌉α + 2G/β, with the same "
        "gradient size, bandwidth and latency that give {ring_ms} ms at {gpus} GPUs. A flat ring's 2(N−1) "
        "latency terms reach "
        "seconds at a million GPUs: that is why NCCL switches to trees and hierarchical rings at scale.</li>"
        "<li>GPU-hours lost per day = N × 24 h × (1 − efficiency), efficiency being the step without jitter or "
        "stragglers over the expected step.</li>"
        "<li><b>In production, slowness is often persistent.</b> FALCON (Wu et al., HKUST and Alibaba, "
        "arXiv:2410.12588) studied a shared production cluster of over 10,000 GPUs: fail-slows came from CPU/GPU "
        "computation and cross-node networking issues, lasted from tens of seconds to nearly ten hours, and "
        "delayed the average job completion time by 1.34×. Lin et al. (ByteDance and NYU, OSDI 2025, "
        "“Understanding Stragglers in Large Model Training Using What-if Analysis”) analysed a five-month trace of "
        "ByteDance's LLM training cluster and found that stragglers are not always caused by hardware failures but "
        "arise from multiple complex factors; their what-if method replays a job without stragglers, as the "
        "efficiency here does.</li></ul>",
        "fr": "<ul><li>Par rang et par pas, temps de calcul = (forward + backward) × gigue lognormale de moyenne 1 × "
        "un ralentissement qui survient avec la probabilité p ; les rangs persistants sont toujours ralentis. Le pas "
        "attend le rang le plus lent : sa loi est calculée exactement comme le produit des fonctions de répartition "
        "par rang (aucun rang n'est tiré au sort) ; les tests la comparent à un Monte-Carlo qui tire chaque rang.</li>"
        "<li>Durée de l'AllReduce selon le modèle de coût : anneau 2(N−1)(α + G/(Nβ)), arbre "
        "2⌈log₂N⌉α + 2G/β, avec la taille de gradients, la bande passante et la latence qui donnent {ring_ms} "
        "ms à {gpus} GPU. "
        "Les 2(N−1) latences d'un anneau plat atteignent des secondes à un million de GPU : c'est pourquoi NCCL "
        "passe aux arbres et aux anneaux hiérarchiques à grande échelle.</li>"
        "<li>Heures GPU perdues par jour = N × 24 h × (1 − efficacité), l'efficacité étant le pas sans gigue ni "
        "retardataire divisé par le pas attendu.</li>"
        "<li><b>En production, la lenteur est souvent persistante.</b> FALCON (Wu et al., HKUST et Alibaba, "
        "arXiv:2410.12588) a étudié un cluster de production partagé de plus de 10 000 GPU : les « fail-slows » "
        "venaient du calcul CPU/GPU et du réseau entre nœuds, duraient de quelques dizaines de secondes à près de "
        "dix heures, et allongeaient en moyenne la durée des jobs d'un facteur 1,34. Lin et al. (ByteDance et NYU, "
        "OSDI 2025, « Understanding Stragglers in Large Model Training Using What-if Analysis ») ont analysé cinq "
        "mois de traces du cluster d'entraînement de LLM de ByteDance : les retardataires ne viennent pas toujours "
        "de pannes matérielles mais de multiples facteurs complexes ; leur méthode « what-if » rejoue un job sans "
        "retardataire, comme le fait l'efficacité ici.</li></ul>",
    },
    "ctl.gpus": {"en": "GPUs", "fr": "GPU"},
    "ctl.straggler": {"en": "Straggler", "fr": "Retardataire"},
    "ctl.slowdown": {"en": "Slowdown", "fr": "Ralentissement"},
    "ctl.prefetch": {"en": "Prefetch input data", "fr": "Préchargement des données"},
    "ctl.play": {"en": "Play", "fr": "Lecture"},
    "ctl.pause": {"en": "Pause", "fr": "Pause"},
    "ctl.next": {"en": "Next exchange", "fr": "Échange suivant"},
    "ctl.reset": {"en": "Reset", "fr": "Réinitialiser"},
    "ctl.lang": {"en": "Language", "fr": "Langue"},
    "ctl.exchange": {"en": "Exchange", "fr": "Échange"},
    "gpu": {"en": "GPU {i}", "fr": "GPU {i}"},
    "ring.title": {"en": "Ring AllReduce", "fr": "Ring AllReduce"},
    "ring.help": {
        "en": "<b>Try</b> “Next exchange” a few times. <b>Notice</b> that every GPU sends one chunk per "
        "exchange to its "
        "neighbour at once: N−1 reduce-scatter exchanges add one contribution per hop until each GPU owns one complete "
        "chunk (ringed), then N−1 all-gather exchanges pass the complete chunks round. Each GPU sends 2(N−1)/N times "
        "the gradient size, whatever N.",
        "fr": "<b>Essayez</b> « Échange suivant » plusieurs fois. <b>Remarquez</b> que chaque GPU envoie un morceau à "
        "son voisin à chaque échange, tous en même temps : N−1 échanges reduce-scatter ajoutent une contribution par "
        "saut jusqu'à ce que chaque GPU détienne un morceau complet (cerclé), puis N−1 échanges all-gather font "
        "circuler les morceaux complets. Chaque GPU envoie 2(N−1)/N fois la taille des gradients, quel que soit N.",
    },
    "ring.before": {"en": "before the first exchange", "fr": "avant le premier échange"},
    "ring.reduce-scatter": {"en": "reduce-scatter {k}/{n}", "fr": "reduce-scatter {k}/{n}"},
    "ring.all-gather": {"en": "all-gather {k}/{n}", "fr": "all-gather {k}/{n}"},
    "ring.sent": {"en": "each GPU has sent {x} × the gradients", "fr": "chaque GPU a envoyé {x} × les gradients"},
    "ring.legend_count": {"en": "shade: contributions summed", "fr": "teinte : contributions sommées"},
    "ring.legend_final": {"en": "ringed: complete sum", "fr": "cerclé : somme complète"},
    "ring.desc": {
        "en": "Ring of {n} GPUs; each box is one chunk of the gradients.",
        "fr": "Anneau de {n} GPU ; chaque case est un morceau des gradients.",
    },
    "timeline.title": {"en": "Timeline of one step", "fr": "Chronologie d'un pas"},
    "timeline.help": {
        "en": "<b>Try</b> slowing the straggler to 1.5× then 2×. <b>Notice</b> that every other GPU finishes early and "
        "waits, hatched, at the AllReduce barrier: one slow GPU sets the pace of all of them. Then turn prefetch on: "
        "the loading phase shrinks by a few ms, while the straggler still costs tens.",
        "fr": "<b>Essayez</b> de ralentir le retardataire à 1,5× puis 2×. <b>Remarquez</b> que tous les autres GPU "
        "finissent tôt et attendent, hachurés, à la barrière de l'AllReduce : un seul GPU lent impose son rythme à "
        "tous. Activez ensuite le préchargement : le chargement raccourcit de quelques ms, le retardataire coûte "
        "toujours des dizaines.",
    },
    "timeline.axis": {"en": "time in the step (ms)", "fr": "temps dans le pas (ms)"},
    "timeline.bucket": {"en": "bucket {b} AllReduce ({mb} MB)", "fr": "AllReduce du bucket {b} ({mb} Mo)"},
    "timeline.barrier": {"en": "barrier", "fr": "barrière"},
    "timeline.straggler": {"en": "straggler", "fr": "retardataire"},
    "timeline.desc": {
        "en": "One lane per GPU; step time {t} ms.",
        "fr": "Une ligne par GPU ; durée du pas {t} ms.",
    },
    "phase.load": {"en": "load", "fr": "chargement"},
    "phase.forward": {"en": "forward", "fr": "forward"},
    "phase.backward": {"en": "backward", "fr": "backward"},
    "phase.wait": {"en": "wait at barrier", "fr": "attente à la barrière"},
    "phase.allreduce": {"en": "AllReduce", "fr": "AllReduce"},
    "phase.optimizer": {"en": "optimizer", "fr": "optimiseur"},
    "phase.other_comm": {"en": "other collectives", "fr": "autres collectives"},
    "phase.gpu_compute": {"en": "GPU compute", "fr": "calcul GPU"},
    "phase.gpu_comm": {"en": "GPU comm.", "fr": "comm. GPU"},
    "traces.row_title": {
        "en": "{label} · {phase} · {n} span(s), {total} in all",
        "fr": "{label} · {phase} · {n} intervalle(s), {total} au total",
    },
    "cost.title": {"en": "What it costs", "fr": "Ce que ça coûte"},
    "cost.help": {
        "en": "<b>Notice</b> the two gauges move in opposite directions: as the straggler slows down, displayed "
        "utilization <em>rises</em> (the NCCL kernel spinning at the barrier counts as busy) while useful compute "
        "falls. Alert on step time and the straggler gap, not on utilization.",
        "fr": "<b>Remarquez</b> que les deux jauges bougent en sens inverse : quand le retardataire ralentit, "
        "l'utilisation affichée <em>monte</em> (le noyau NCCL qui tourne à vide à la barrière compte comme occupé) "
        "tandis que le calcul utile baisse. Alertez sur la durée du pas et l'écart du retardataire, pas sur "
        "l'utilisation.",
    },
    "modes.step": {"en": "Step time", "fr": "Durée du pas"},
    "modes.exposed": {"en": "Exposed communication", "fr": "Communication exposée"},
    "modes.straggler": {"en": "Straggler cost", "fr": "Coût du retardataire"},
    "modes.sequential": {"en": "Sequential", "fr": "Séquentiel"},
    "modes.overlap": {"en": "DDP overlap", "fr": "Recouvrement DDP"},
    "modes.bw": {
        "en": "Bucket AllReduces in overlap: algbw {algbw} GB/s, busbw {busbw} GB/s (as nccl-tests reports them).",
        "fr": "AllReduce des buckets en recouvrement : algbw {algbw} Go/s, busbw {busbw} Go/s (comme les "
        "rapporte nccl-tests).",
    },
    "ctl.mode": {"en": "Mode", "fr": "Mode"},
    "ctl.lost_in": {"en": "The straggler loses its time", "fr": "Le retardataire perd son temps"},
    "ctl.lost_in_compute": {"en": "computing (forward, backward)", "fr": "en calcul (forward, backward)"},
    "ctl.lost_in_load": {"en": "loading its input", "fr": "à charger ses données"},
    "ctl.lost_in_between_steps": {"en": "between steps", "fr": "entre les pas"},
    "ctl.mode_sequential": {"en": "Sequential (reference)", "fr": "Séquentiel (référence)"},
    "ctl.mode_overlap": {"en": "DDP overlap (buckets)", "fr": "Recouvrement DDP (buckets)"},
    "ctl.bandwidth": {"en": "Link bandwidth (GB/s)", "fr": "Bande passante (Go/s)"},
    "overlap.title": {
        "en": "What overlap hides, and what it cannot",
        "fr": "Ce que le recouvrement cache, et ce qu'il ne peut pas cacher",
    },
    "overlap.body": {
        "en": "<p>PyTorch DDP does not wait for the whole backward pass: gradients are grouped into buckets "
        "({bucket_mb} MB, "
        "and a first bucket of {first_bucket_mb} MB), produced in reverse layer order, and each bucket's "
        "AllReduce starts on a "
        "communication stream as soon as every rank has produced it. Most of the communication then runs under "
        "the backward pass, and only the last bucket remains exposed.</p>"
        "<p>What it cannot hide is the straggler: a bucket is reduced only when <em>every</em> rank has produced "
        "it, so the last bucket still waits for the slowest GPU. With enough bandwidth, a straggler at slowdown s "
        "costs (s − 1) × (forward + backward) in both modes. Overlap shortens the step; it does not remove the "
        "barrier. And with many small buckets on a high-latency ring, the extra per-bucket latency can make "
        "overlap lose to one large AllReduce.</p>",
        "fr": "<p>PyTorch DDP n'attend pas la fin de la rétropropagation : les gradients sont groupés en buckets "
        "({bucket_mb} Mo, et un premier bucket de {first_bucket_mb} Mo), produits dans l'ordre inverse des "
        "couches, et l'AllReduce de chaque "
        "bucket démarre sur un flux de communication dès que tous les rangs l'ont produit. L'essentiel de la "
        "communication passe alors sous la rétropropagation ; seul le dernier bucket reste exposé.</p>"
        "<p>Ce qu'il ne peut pas cacher, c'est le retardataire : un bucket n'est réduit que lorsque <em>tous</em> "
        "les rangs l'ont produit, donc le dernier bucket attend toujours le GPU le plus lent. Avec assez de bande "
        "passante, un retardataire ralenti d'un facteur s coûte (s − 1) × (forward + backward) dans les deux modes. "
        "Le recouvrement raccourcit le pas ; il ne supprime pas la barrière. Et avec beaucoup de petits buckets sur "
        "un anneau à forte latence, la latence payée par bucket peut rendre le recouvrement plus lent qu'un seul "
        "grand AllReduce.</p>",
    },
    "rank": {"en": "rank {r}", "fr": "rang {r}"},
    "traces.title": {"en": "Your traces: find the straggler", "fr": "Vos traces : trouver le retardataire"},
    "traces.pick": {"en": "Trace files, one per rank", "fr": "Fichiers de trace, un par rang"},
    "traces.drop": {
        "en": "Drop PyTorch profiler traces (.json, .json.gz) or ddpcore JSONL files here (its Recorder's, or its "
        "Lightning or Hugging Face callback's), or torchtitan's structured logs, one per rank (a pipeline-parallel "
        "job's profiler traces too), or a 3D-parallel job's operation table (.parquet) or timeline with its meta "
        "file (.yaml). They are read in your browser and sent nowhere.",
        "fr": "Déposez ici des traces du profileur PyTorch (.json, .json.gz) ou des fichiers JSONL ddpcore (de son "
        "Recorder, ou de son callback Lightning ou Hugging Face), ou les journaux structurés de torchtitan, un par "
        "rang (les traces du profileur d'un job à parallélisme de pipeline aussi), ou la table d'opérations "
        "(.parquet) ou la timeline d'un job parallèle 3D avec son fichier meta (.yaml). Ils sont lus dans votre "
        "navigateur et ne sont envoyés nulle part.",
    },
    "traces.example": {
        "en": "Load the example (4 ranks, rank 2 slowed)",
        "fr": "Charger l'exemple (4 rangs, rang 2 ralenti)",
    },
    "traces.example_gpu": {
        "en": "Load a GPU example (2 of 128 ranks, TorchRec + DDP, NCCL)",
        "fr": "Charger un exemple GPU (2 rangs sur 128, TorchRec + DDP, NCCL)",
    },
    "traces.why_rank": {"en": "Why rank {r} is late: {why}.", "fr": "Pourquoi le rang {r} est en retard : {why}."},
    "traces.why_transient": {
        "en": "Why the transient stragglers are late: {why}.",
        "fr": "Pourquoi les retardataires passagers sont en retard : {why}.",
    },
    "traces.noise": {
        "en": "What chance allows: a rank on time is over the threshold in {chance} of steps; a persistent "
        "straggler is over it in at least {needed} of {steps} steps (one slow from some step on, in most steps of "
        "that stretch) and {persistent}; {transient}.",
        "fr": "Ce que permet le hasard : un rang à l'heure dépasse le seuil sur {chance} des pas ; un retardataire "
        "persistant le dépasse sur au moins {needed} pas sur {steps} (un rang lent à partir d'un pas, sur la plupart "
        "des pas de cette période) et {persistent} ; {transient}.",
    },
    "traces.noise_persistent": {
        "en": "works on average {mean} more than the other ranks on time",
        "fr": "travaille en moyenne {mean} de plus que les autres rangs à l'heure",
    },
    "traces.noise_persistent_beyond": {
        "en": "would work on average {mean} more than the other ranks on time, more than a whole step ({step}): this "
        "run's jitter lets no rank pass that bar by how late it is on average",
        "fr": "travaillerait en moyenne {mean} de plus que les autres rangs à l'heure, plus qu'un pas entier ({step}) "
        ": la gigue de ce run ne laisse aucun rang passer cette barre par son retard moyen",
    },
    "traces.noise_transient": {
        "en": "a transient one works {floor} more in its step",
        "fr": "un passager travaille {floor} de plus dans son pas",
    },
    "traces.noise_transient_beyond": {
        "en": "no single rank-step can be a transient one: this run's jitter puts that bar at {floor}, more than a "
        "whole step ({step}), so that only stragglers late together, or in most steps, stand out",
        "fr": "aucun pas de rang seul ne peut être un passager : la gigue de ce run place cette barre à {floor}, plus "
        "qu'un pas entier ({step}), si bien que seuls des retardataires en retard ensemble, ou sur la plupart des "
        "pas, ressortent",
    },
    "traces.noise_latest": {
        "en": "{transient}; while a straggler moves from rank to rank, a step's latest rank is late from {latest} "
        "more (its steps named together, at most one in twenty of them on time)",
        "fr": "{transient} ; tant qu'un retardataire change de rang d'un pas à l'autre, le dernier rang d'un pas est "
        "en retard dès {latest} de plus (ses pas désignés ensemble, au plus un sur vingt d'entre eux à l'heure)",
    },
    "traces.cost_persistent": {"en": "of which persistent stragglers", "fr": "dont retardataires persistants"},
    "traces.cost_transient": {"en": "of which transient stragglers", "fr": "dont retardataires passagers"},
    "traces.cost_unnamed": {
        "en": "of which lateness beyond chance, in no rank-step late enough to name",
        "fr": "dont retard au-delà du hasard, dans aucun pas de rang assez en retard pour être nommé",
    },
    "traces.cost_jitter": {
        "en": "Jitter alone (not in the cost): latest on-time rank after their median, as chance makes it",
        "fr": "Gigue seule (hors coût) : dernier rang à l'heure après leur médiane, tel que le hasard le fait",
    },
    "traces.excess": {
        "en": "{label} · late by {ms} against the median rank",
        "fr": "{label} · en retard de {ms} sur le rang médian",
    },
    "traces.release": {"en": "release", "fr": "libération"},
    "threshold.applying": {"en": "Applying “{given}”…", "fr": "Application de « {given} »…"},
    "threshold.still": {"en": "Still {applied}.", "fr": "Toujours {applied}."},
    "traces.cancel": {"en": "Cancel", "fr": "Annuler"},
    "traces.empty": {
        "en": "Drop one trace per rank, or try an example: the straggler, why it is late and what it costs, a rank × "
        "step map, the lanes of each step, alert rules and your run at scale will appear here.",
        "fr": "Déposez une trace par rang, ou essayez un exemple : le retardataire, pourquoi il est en retard et ce "
        "qu'il coûte, une carte rang × pas, les couloirs de chaque pas, les règles d'alerte et votre run à l'échelle "
        "apparaîtront ici.",
    },
    "map.ranks": {"en": "ranks {first}–{last}", "fr": "rangs {first} à {last}"},
    "map.cell": {
        "en": "rank {rank}, step {step}: {cost} late ({gap} of the step)",
        "fr": "rang {rank}, pas {step} : {cost} de retard ({gap} du pas)",
    },
    "map.row": {
        "en": "{ranks}: late in {late} of {steps} steps",
        "fr": "{ranks} : en retard sur {late} pas sur {steps}",
    },
    "map.axis": {"en": "steps {first} to {last} ({n})", "fr": "pas {first} à {last} ({n})"},
    "map.desc": {
        "en": "Rank by step map of {ranks} ranks and {steps} steps: {late} late cells drawn",
        "fr": "Carte rang par pas de {ranks} rangs et {steps} pas : {late} cases en retard dessinées",
    },
    "map.title": {"en": "Who was late, step by step", "fr": "Qui était en retard, pas à pas"},
    "map.help": {
        "en": "A row per rank (at most 256 rows: past that, each row keeps its latest rank step by step), a column "
        "per step; a cell is drawn where that rank was late: over the threshold, and a persistent straggler or later "
        "than chance (dark: twice the threshold). A persistent straggler is a row, transient ones are scattered cells. "
        "Click a cell, or focus a row and press Enter, to "
        "open that step below.",
        "fr": "Une ligne par rang (256 lignes au plus : au-delà, chaque ligne garde pas à pas son rang le plus en "
        "retard), une colonne par pas ; une case est dessinée où ce rang était en retard : au-delà du seuil, et "
        "retardataire persistant ou plus tard que le hasard (foncée : deux fois le seuil). Un retardataire persistant "
        "est une ligne, les passagers des cases éparses. Cliquez une case, "
        "ou placez-vous sur une ligne et appuyez sur Entrée, pour ouvrir ce pas ci-dessous.",
    },
    "traces.lanes_note": {
        "en": "{shown} of {n} ranks shown: the latest ones and the median rank.",
        "fr": "{shown} rangs sur {n} affichés : les plus en retard et le rang médian.",
    },
    "traces.table_note": {
        "en": "Ranks {first}–{last} of {n}, latest first (by median gap).",
        "fr": "Rangs {first} à {last} sur {n}, les plus en retard d'abord (par écart médian).",
    },
    "traces.pages": {"en": "Pages of the ranks table", "fr": "Pages du tableau des rangs"},
    "figure.scroll": {
        "en": "Scroll sideways: it goes on to the right →",
        "fr": "Faites défiler de côté : la suite est à droite →",
    },
    "traces.prev": {"en": "Previous ranks", "fr": "Rangs précédents"},
    "traces.next": {"en": "Next ranks", "fr": "Rangs suivants"},
    "fit.title": {"en": "Your run at scale", "fr": "Votre run à l'échelle"},
    "fit.empty": {
        "en": "Load the traces of at least two ranks: the cluster model's straggler parameters are then fitted to "
        "your run, and carried to 1,000 to 100,000 GPUs.",
        "fr": "Chargez les traces d'au moins deux rangs : les paramètres de retardataires du modèle de cluster sont "
        "alors ajustés à votre run, puis portés à 1 000 à 100 000 GPU.",
    },
    "fit.pending": {"en": "Fitting the straggler model to your run…", "fr": "Ajustement du modèle à votre run…"},
    "fit.interval": {"en": "95%: {interval}", "fr": "95 % : {interval}"},
    "fit.evidence": {"en": "{k} of {n} rank-steps", "fr": "{k} sur {n} pas-rangs"},
    "fit.cv": {"en": "Jitter (coefficient of variation)", "fr": "Gigue (coefficient de variation)"},
    "fit.p": {"en": "Transient stragglers", "fr": "Retardataires passagers"},
    "fit.s": {"en": "Their slowdown", "fr": "Leur ralentissement"},
    "fit.persistent": {"en": "Persistent slow ranks", "fr": "Rangs lents persistants"},
    "fit.persistent_value": {"en": "rank {ranks}, {s} slower", "fr": "rang {ranks}, {s} plus lent"},
    "fit.none": {"en": "none", "fr": "aucun"},
    "fit.timing": {"en": "Compute per rank", "fr": "Calcul par rang"},
    "fit.timing_value": {"en": "+ {other} for the rest of the step", "fr": "+ {other} pour le reste du pas"},
    "fit.whatif_none": {
        "en": "This run has no straggler cost: without stragglers it would step as it does, in {measured}. Nothing "
        "to gain.",
        "fr": "Ce run n'a aucun coût de retardataire : sans retardataires il ferait son pas comme maintenant, en "
        "{measured}. Rien à gagner.",
    },
    "fit.whatif": {
        "en": "Without its stragglers, this run would step in {step} instead of {measured}: efficiency {efficiency}, "
        "{hours} GPU-hours a day saved at {n} GPUs.",
        "fr": "Sans ses retardataires, ce run ferait un pas en {step} au lieu de {measured} : efficacité "
        "{efficiency}, {hours} heures GPU gagnées par jour à {n} GPU.",
    },
    "fit.check": {
        "en": "Check: at {n} GPUs the fitted model expects {expected} a step; the run measured {measured} ({error}).",
        "fr": "Vérification : à {n} GPU, le modèle ajusté attend {expected} par pas ; le run a mesuré {measured} "
        "({error}).",
    },
    "fit.check_off": {
        "en": "Check: at {n} GPUs the fitted model expects {expected} a step, but the run measured {measured} "
        "({error}): the model does not describe this run well; take the rows below with care.",
        "fr": "Vérification : à {n} GPU, le modèle ajusté attend {expected} par pas, mais le run a mesuré "
        "{measured} ({error}) : le modèle décrit mal ce run ; lisez les lignes ci-dessous avec prudence.",
    },
    "fit.col_gpus": {"en": "GPUs", "fr": "GPU"},
    "fit.measured_row": {"en": "{n} (this run, measured)", "fr": "{n} (ce run, mesuré)"},
    "fit.scale_caption": {
        "en": "The first row is your run as measured: its mean and 99th-percentile step, and the efficiency of the "
        "verdict above (against the run without its stragglers). The rows beyond are the fitted model: the rest of "
        "the step held at its measured length, the same persistent slow ranks, and an efficiency against a step "
        "with neither jitter nor stragglers.",
        "fr": "La première ligne est votre run tel que mesuré : son pas moyen et son 99e centile, et l'efficacité "
        "du verdict ci-dessus (rapportée au run sans ses retardataires). Les lignes suivantes sont le modèle ajusté : "
        "le reste du pas gardé à sa durée mesurée, les mêmes rangs lents persistants, et une efficacité rapportée à "
        "un pas sans gigue ni retardataire.",
    },
    "fit.bounded": {
        "en": "the model goes up to {used}: the rows at scale and the Cluster view use {used}",
        "fr": "le modèle va jusqu'à {used} : les lignes à l'échelle et la vue Cluster utilisent {used}",
    },
    "fit.open_cluster": {"en": "Open the Cluster view on this run", "fr": "Ouvrir la vue Cluster sur ce run"},
    "traces.progress_of": {"en": "Reading {name}", "fr": "Lecture de {name}"},
    "traces.loading": {"en": "Reading {n} file(s)…", "fr": "Lecture de {n} fichier(s)…"},
    "traces.loading_file": {"en": "Reading file {i} of {n}…", "fr": "Lecture du fichier {i} sur {n}…"},
    "traces.progress_mb": {"en": "{done} of {size} MB", "fr": "{done} sur {size} Mo"},
    "traces.progress_kb": {"en": "{done} of {size} kB", "fr": "{done} sur {size} ko"},
    "traces.progress_all": {"en": "{read} of {n} files read", "fr": "{read} fichiers lus sur {n}"},
    "traces.measuring": {"en": "Analysing {n} trace(s)…", "fr": "Analyse de {n} trace(s)…"},
    "traces.measuring_steps": {
        "en": "Analysing {n} trace(s): step {i} of {m}…",
        "fr": "Analyse de {n} trace(s) : pas {i} sur {m}…",
    },
    "traces.step": {"en": "Step", "fr": "Pas"},
    "traces.step_option": {
        "en": "step {n}: latest rank {r}, gap {gap}",
        "fr": "pas {n} : dernier rang {r}, écart {gap}",
    },
    "traces.step_option_late": {
        "en": "step {n}: latest rank {r}, gap {gap} (straggler step)",
        "fr": "pas {n} : dernier rang {r}, écart {gap} (pas avec retardataire)",
    },
    "traces.stragglers_are": {"en": "Persistent straggler: {ranks}", "fr": "Retardataire persistant : {ranks}"},
    "traces.persistent_line": {
        "en": "rank {r}: late in {late} of {steps} steps; over all of them, its own median gap is {gap} of the step "
        "(ready {cost} after the median rank)",
        "fr": "rang {r} : en retard sur {late} pas sur {steps} ; sur tous, son propre écart médian est de {gap} du pas "
        "(prêt {cost} après le rang médian)",
    },
    "traces.no_straggler": {
        "en": "No persistent straggler: no rank is over the threshold in most steps and later than chance allows",
        "fr": "Aucun retardataire persistant : aucun rang ne dépasse le seuil sur la plupart des pas en étant plus "
        "en retard que le hasard ne le permet",
    },
    "traces.transient_line": {
        "en": "Transient stragglers: {k} of {n} steps had a rank late by {threshold} of the step or more, and later "
        "than chance ({which}); in each of those steps the other ranks waited {cost} for it on average (their median "
        "wait, not what the step would gain: the latest rank on time would still set it).",
        "fr": "Retardataires passagers : {k} pas sur {n} ont eu un rang en retard d'au moins {threshold} du pas, et "
        "plus tard que le hasard ({which}) ; à chacun de ces pas, les autres rangs l'ont attendu {cost} en moyenne "
        "(leur attente médiane, non ce que le pas gagnerait : le dernier rang à l'heure le fixerait encore).",
    },
    "traces.more": {"en": "and {n} more", "fr": "et {n} de plus"},
    "traces.transient_none": {
        "en": "Transient stragglers: no step had a rank late by {threshold} of the step or more and later than chance.",
        "fr": "Retardataires passagers : aucun pas n'a eu de rang en retard d'au moins {threshold} du pas et plus "
        "tard que le hasard.",
    },
    "traces.gap": {
        "en": "Gap of each step's latest rank, whoever it is (median over steps, share of the step)",
        "fr": "Écart du dernier rang de chaque pas, quel qu'il soit (médiane des pas, part du pas)",
    },
    "traces.efficiency": {
        "en": "Efficiency against this run without the stragglers named",
        "fr": "Efficacité rapportée à ce run sans les retardataires désignés",
    },
    "traces.wait": {
        "en": "GPU time burnt at the barrier, per step, all ranks together",
        "fr": "Temps GPU brûlé à la barrière, par pas, tous rangs confondus",
    },
    "traces.ideal": {
        "en": "Step re-timed with the late ranks on time (what-if, mean)",
        "fr": "Pas recalculé avec les rangs en retard à l'heure (simulation, moyenne)",
    },
    "traces.step_mean": {"en": "Step time (mean over steps)", "fr": "Durée du pas (moyenne des pas)"},
    "traces.step_median": {"en": "Median step", "fr": "Pas médian"},
    "traces.cost": {"en": "Straggler cost per step (mean)", "fr": "Coût des retardataires par pas (moyenne)"},
    "traces.gpu_busy": {"en": "GPU busy, as nvidia-smi shows it", "fr": "GPU occupé, comme l'affiche nvidia-smi"},
    "traces.gpu_busy_sub": {"en": "any kernel running, NCCL included", "fr": "un noyau quelconque actif, NCCL compris"},
    "traces.gpu_compute": {"en": "Compute kernels", "fr": "Noyaux de calcul"},
    "traces.gpu_compute_sub": {"en": "non-communication kernels running", "fr": "noyaux hors communication actifs"},
    "traces.exposed_comm": {
        "en": "Exposed communication per step (no compute kernel beside it)",
        "fr": "Communication exposée par pas (sans noyau de calcul à côté)",
    },
    "traces.comm_overlap": {
        "en": "Communication overlapped by compute",
        "fr": "Communication recouverte par le calcul",
    },
    "traces.gpu_honest": {
        "en": "From the trace's kernels: time a kernel ran, not how much of the GPU it used. Whether the tensor pipes "
        "were busy takes DCGM's profiling counters (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE); a trace cannot tell.",
        "fr": "D'après les noyaux de la trace : le temps où un noyau tournait, pas la part du GPU qu'il occupait. "
        "Savoir si les tensor cores travaillaient demande les compteurs de profilage de DCGM "
        "(DCGM_FI_PROF_PIPE_TENSOR_ACTIVE) ; une trace ne peut pas le dire.",
    },
    "traces.gpu_none": {
        "en": "No GPU gauges: these traces hold no GPU kernels (CPU activities only, or ddpcore JSONL).",
        "fr": "Pas de jauges GPU : ces traces ne contiennent aucun noyau GPU (activités CPU seules, ou JSONL ddpcore).",
    },
    "traces.timeline_desc": {
        "en": "Measured step {step}, one lane per rank.",
        "fr": "Pas mesuré {step}, une ligne par rang.",
    },
    "traces.col_rank": {"en": "Rank", "fr": "Rang"},
    "traces.col_step": {"en": "Mean step", "fr": "Pas moyen"},
    "traces.col_gap": {"en": "Median gap", "fr": "Écart médian"},
    "traces.col_late": {"en": "Late in", "fr": "En retard sur"},
    "traces.col_busy": {"en": "GPU busy", "fr": "GPU occupé"},
    "traces.col_compute": {"en": "Compute kernels", "fr": "Noyaux de calcul"},
    "traces.col_wait": {"en": "Wait", "fr": "Attente"},
    "traces.col_file": {"en": "File", "fr": "Fichier"},
    "traces.alert_title": {"en": "Catch it in production", "fr": "L'attraper en production"},
    "traces.threshold": {
        "en": "A rank is late, and alerts, when its gap reaches (share of the step)",
        "fr": "Un rang est en retard, et alerte, quand son écart atteint (part du pas)",
    },
    "traces.copy": {"en": "Copy", "fr": "Copier"},
    "job.title": {
        "en": "3D-parallel job: DP {dp} × PP {pp} × TP {tp} × CP {cp} ({world} ranks), {steps} steps",
        "fr": "Job parallèle 3D : DP {dp} × PP {pp} × TP {tp} × CP {cp} ({world} rangs), {steps} pas",
    },
    "job.chunks": {
        "en": "{vpp} model chunks a stage (interleaved)",
        "fr": "{vpp} morceaux de modèle par étage (entrelacé)",
    },
    "job.slowdown": {"en": "Slowdown S against the ideal step:", "fr": "Ralentissement S face au pas idéal :"},
    "job.stage_n": {"en": "stage {stage}", "fr": "étage {stage}"},
    "job.dp_n": {"en": "DP {dp}", "fr": "DP {dp}"},
    "job.cell": {
        "en": "DP {dp}, stage {stage}: the job at {value} its ideal step with this worker's real durations alone",
        "fr": "DP {dp}, étage {stage} : le job à {value} de son pas idéal avec les seules durées réelles de ce worker",
    },
    "job.heatmap_label": {
        "en": "Slowdown each worker costs alone, by data-parallel rank and stage",
        "fr": "Ralentissement que coûte chaque worker seul, par rang data-parallel et par étage",
    },
    "job.heatmap_help": {
        "en": "Each cell: the job's step with that worker's real durations, every other operation at its typical "
        "duration, over the ideal step (the smaller of its DP rank's and its stage's). Red: the worst.",
        "fr": "Chaque case : le pas du job avec les durées réelles de ce worker, toute autre opération à sa durée "
        "typique, rapporté au pas idéal (le plus petit de son rang DP et de son étage). Rouge : le pire.",
    },
    "job.by_stage": {"en": "S by stage", "fr": "S par étage"},
    "job.by_dp": {"en": "S by data-parallel rank", "fr": "S par rang data-parallel"},
    "job.by_type": {"en": "S by operation type", "fr": "S par type d'opération"},
    "job.stage_n_key": {"en": "stage {label}", "fr": "étage {label}"},
    "job.dp_n_key": {"en": "DP {label}", "fr": "DP {label}"},
    "job.type_key": {"en": "{label}", "fr": "{label}"},
    "job.step_measured": {"en": "As recorded", "fr": "Tel qu'enregistré"},
    "job.step_ideal": {
        "en": "Ideal: every operation at its typical duration",
        "fr": "Idéal : chaque opération à sa durée typique",
    },
    "job.lane": {"en": "DP {dp} · stage {stage}", "fr": "DP {dp} · étage {stage}"},
    "job.op": {"en": "{op}: {start} to {end} ms", "fr": "{op} : de {start} à {end} ms"},
    "job.step_label": {
        "en": "Step {step}, the job's worst, as recorded and in the ideal, one lane per worker",
        "fr": "Le pas {step}, le pire du job, tel qu'enregistré et dans l'idéal, une ligne par worker",
    },
    "job.step_help": {
        "en": "Step {step}, the one furthest from its ideal, for its slowest DP rank and a few others: the recorded "
        "operations above, the same at typical durations below, on one time axis.",
        "fr": "Le pas {step}, le plus éloigné de son idéal, pour son rang DP le plus lent et quelques autres : les "
        "opérations enregistrées en haut, les mêmes aux durées typiques en bas, sur un même axe de temps.",
    },
    "job.kind_forward": {"en": "forward", "fr": "forward"},
    "job.kind_backward": {"en": "backward", "fr": "backward"},
    "job.kind_pp": {"en": "pipeline send/receive", "fr": "envoi/réception du pipeline"},
    "job.kind_dp": {"en": "data-parallel and clip collectives", "fr": "collectives data-parallel et clip"},
    "job.kind_other": {"en": "optimizer and other", "fr": "optimiseur et autres"},
    "job.perfetto_help": {
        "en": "The job's steps as recorded, and below them the same at typical durations, a process per DP rank and "
        "a thread per stage (made in your browser).",
        "fr": "Les pas du job tels qu'enregistrés, et en dessous les mêmes aux durées typiques, un processus par rang "
        "DP et un fil par étage (fait dans votre navigateur).",
    },
    "job.more": {"en": "(the largest; {n} more)", "fr": "(les plus grands ; {n} de plus)"},
    "compare.title": {"en": "Before and after a fix", "fr": "Avant et après une correction"},
    "compare.pick": {"en": "The run after the fix", "fr": "L'exécution après la correction"},
    "compare.help": {
        "en": "Pick the files of the same job run again after a fix: the run shown above is the run before. The "
        "files are read here, like the first ones, and never sent anywhere.",
        "fr": "Choisissez les fichiers du même travail relancé après une correction : l'exécution affichée plus haut "
        "est celle d'avant. Les fichiers sont lus ici, comme les premiers, et ne sont envoyés nulle part.",
    },
    "compare.linked": {
        "en": "This link showed a comparison. Files are never in a link: pick the run before above, then the run "
        "after here.",
        "fr": "Ce lien montrait une comparaison. Les fichiers ne sont jamais dans un lien : choisissez l'exécution "
        "d'avant plus haut, puis celle d'après ici.",
    },
    "compare.reading": {"en": "Reading the run after…", "fr": "Lecture de l'exécution d'après…"},
    "compare.step": {"en": "Mean step", "fr": "Pas moyen"},
    "compare.step_value": {
        "en": "{before} → {after}: {change} (95 % interval {lo} to {hi})",
        "fr": "{before} → {after} : {change} (intervalle à 95 % de {lo} à {hi})",
    },
    "compare.verdict": {"en": "Verdict", "fr": "Verdict"},
    "compare.within": {
        "en": "within noise: the runs' own variation explains the change",
        "fr": "dans le bruit : la variation propre des exécutions explique le changement",
    },
    "compare.faster": {"en": "faster, beyond noise", "fr": "plus rapide, au-delà du bruit"},
    "compare.slower": {"en": "slower, beyond noise", "fr": "plus lent, au-delà du bruit"},
    "compare.median": {"en": "Median step", "fr": "Pas médian"},
    "compare.went": {"en": "Stragglers that went", "fr": "Retardataires partis"},
    "compare.stayed": {"en": "Stragglers that stayed", "fr": "Retardataires restés"},
    "compare.appeared": {"en": "Stragglers that appeared", "fr": "Retardataires apparus"},
    "compare.whatif": {"en": "The what-if's check", "fr": "Vérification du scénario"},
    "compare.whatif_value": {
        "en": "predicted {predicted} a step without the stragglers; measured {measured} after ({error} apart)",
        "fr": "prévu {predicted} par pas sans les retardataires ; mesuré {measured} après ({error} d'écart)",
    },
    "traces.perfetto": {"en": "Download for Perfetto", "fr": "Télécharger pour Perfetto"},
    "traces.perfetto_help": {
        "en": "The steps as measured, the what-if and the verdict, as a trace-event file that Perfetto "
        "(ui.perfetto.dev) and chrome://tracing open. It is made here: nothing is sent anywhere.",
        "fr": "Les pas mesurés, le scénario et le verdict, en fichier d'événements de trace que Perfetto "
        "(ui.perfetto.dev) et chrome://tracing ouvrent. Il est fait ici : rien n'est envoyé nulle part.",
    },
    "traces.copied": {"en": "Copied", "fr": "Copié"},
    "traces.alert_help": {
        "en": "Export both gauges from the training loop: <code>Recorder(…, on_step=serve_metrics(port, rank).observe)"
        "</code> (<code>pip install 'ddpcore[prometheus]'</code>), or try them on these traces with "
        "<code>python -m ddpcore replay FILES --port 9400</code>. The rules below record each rank's gap and the share "
        "of steps with a straggler, and alert when a rank's <em>median</em> gap stays above the threshold: a "
        "persistent straggler, not a transient one. Alert on the <em>wait at the barrier</em>, not on step time: the "
        "barrier makes every rank's step equally long, so step time tells you the job slowed down, never which rank "
        "slowed it; the rank that waits least is the one the others wait for, wherever it lost its time. Below the "
        "rules, a Grafana dashboard of the same series.",
        "fr": "Exportez les deux jauges depuis la boucle d'entraînement : <code>Recorder(…, "
        "on_step=serve_metrics(port, rank).observe)</code> (<code>pip install 'ddpcore[prometheus]'</code>), ou "
        "essayez-les sur ces traces avec <code>python -m ddpcore replay FICHIERS --port 9400</code>. Les règles "
        "ci-dessous enregistrent l'écart de chaque rang et la part des pas avec retardataire, et alertent quand "
        "l'écart <em>médian</em> d'un rang reste au-dessus du seuil : un retardataire persistant, pas un passager. "
        "Alertez sur l'<em>attente à la barrière</em>, pas sur la durée du pas : la barrière rend tous les pas "
        "également longs ; la durée dit que le job ralentit, jamais quel rang le ralentit ; le rang qui attend le "
        "moins est celui que les autres attendent, où qu'il ait perdu son temps. Sous les règles, un tableau de bord "
        "Grafana des mêmes séries.",
    },
    "traces.help": {
        "en": "<b>Notice</b> that every rank's step lasts about as long: the barrier equalises them, and releases every"
        " rank at the same instant (the dashed line). Lanes are aligned on it. A rank's lateness is how much less"
        " it waited there (hatched, from when its last gradient bucket was ready) than the median of the others: "
        "time it lost anywhere since the previous release, between steps included. A late rank's excess is marked"
        " in red. Collectives of the forward (buffer broadcast, all_to_all) are drawn as other collectives and "
        "never count. Under each lane, a thin row shows the collectives as they ran on the host and, for GPU "
        "traces, one more the kernels.",
        "fr": "<b>Remarquez</b> que tous les pas durent à peu près autant : la barrière les égalise, et libère tous "
        "les rangs au même instant (le trait pointillé), sur lequel les lignes sont alignées. Le retard d'un rang est "
        "combien il y a moins attendu (hachuré, depuis que son dernier bucket de gradients était prêt) que la "
        "médiane des autres : le temps qu'il a perdu n'importe où depuis la libération précédente, entre les pas "
        "compris. L'excès d'un rang en retard est marqué en rouge. Les collectives du forward (broadcast des "
        "buffers, all_to_all) sont dessinées comme autres collectives et ne comptent jamais. Sous chaque ligne, une "
        "rangée fine montre les collectives telles qu'elles ont tourné sur l'hôte et, pour les traces GPU, une autre "
        "les noyaux. Forward et backward gardent ici leurs noms PyTorch (<code>module.forward</code>, "
        "<code>loss.backward()</code>) : ce sont ceux que vos traces portent.",
    },
    "phase.idle": {"en": "idle", "fr": "inactif"},
    "phase.forward_backward": {"en": "forward + backward", "fr": "forward + backward"},
    "phase.gc": {"en": "garbage collection", "fr": "ramasse-miettes"},
    "phase.checkpoint": {"en": "checkpoint", "fr": "sauvegarde"},
    "phase.between_steps": {"en": "between steps", "fr": "entre les pas"},
    "cost.step": {"en": "Step time", "fr": "Durée du pas"},
    "cost.ideal": {"en": "Ideal step (no straggler)", "fr": "Pas idéal (sans retardataire)"},
    "cost.efficiency": {"en": "Efficiency", "fr": "Efficacité"},
    "cost.straggler": {"en": "Straggler cost", "fr": "Coût du retardataire"},
    "cost.prefetch": {"en": "Prefetch gain", "fr": "Gain du préchargement"},
    "cost.wait": {"en": "GPU time burnt at the barrier", "fr": "Temps GPU brûlé à la barrière"},
    "cost.displayed": {"en": "Displayed GPU utilization", "fr": "Utilisation GPU affichée"},
    "cost.displayed_sub": {"en": "nvidia-smi, DCGM_FI_DEV_GPU_UTIL", "fr": "nvidia-smi, DCGM_FI_DEV_GPU_UTIL"},
    "cost.useful": {"en": "Useful compute", "fr": "Calcul utile"},
    "cost.h200": {"en": "<b>Measured:</b> " + H200_EN, "fr": "<b>Mesuré :</b> " + H200_FR},
    "cost.useful_sub": {
        "en": "tensor pipes busy, DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
        "fr": "tensor cores actifs, DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
    },
    "cost.lesson_compute": {
        "en": "Prefetch saves {gain} ms; the straggler costs {cost} ms. An I/O fix does not cure a "
        "synchronisation problem.",
        "fr": "Le préchargement fait gagner {gain} ms ; le retardataire coûte {cost} ms. Une optimisation d'E/S "
        "ne guérit pas un problème de synchronisation.",
    },
    "cost.lesson_load": {
        "en": "This straggler loses its time loading its input: prefetch saves {gain} ms, and the straggler costs "
        "{cost} ms. Prefetching fixes an input straggler, and nothing else.",
        "fr": "Ce retardataire perd son temps à charger ses données : le préchargement fait gagner {gain} ms, et le "
        "retardataire coûte {cost} ms. Précharger guérit un retardataire d'entrée, et rien d'autre.",
    },
    "cost.lesson_between_steps": {
        "en": "This straggler loses its time between steps (logging, a checkpoint, a pause): prefetch saves {gain} "
        "ms; the straggler costs {cost} ms. Move that work out of the step, or do it on every rank at once.",
        "fr": "Ce retardataire perd son temps entre les pas (journalisation, checkpoint, pause) : le préchargement "
        "fait gagner {gain} ms ; le retardataire coûte {cost} ms. Sortez ce travail du pas, ou faites-le sur tous "
        "les rangs à la fois.",
    },
    "cost.lesson_none": {
        "en": "Prefetch saves {gain} ms. Slow the straggler down to see what the barrier costs in comparison.",
        "fr": "Le préchargement fait gagner {gain} ms. Ralentissez le retardataire pour comparer avec le coût "
        "de la barrière.",
    },
    "notice.ignored": {"en": "ignored", "fr": "ignoré"},
    "notice.auto": {"en": "auto", "fr": "auto"},
    "notice.defaults": {"en": "defaults", "fr": "valeurs par défaut"},
    "notice.clamped": {
        "en": "Link value {name}={given} is not usable here; using {used}.",
        "fr": "Valeur du lien {name}={given} inutilisable ici ; valeur retenue : {used}.",
    },
    "notice.dismiss": {"en": "Dismiss", "fr": "Fermer"},
    "motion.reduced": {
        "en": "Reduced motion is on: Play jumps to the end of the step; use “Next exchange” to go one exchange "
        "at a time.",
        "fr": "Animations réduites : Lecture saute à la fin du pas ; « Échange suivant » avance d'un échange à "
        "la fois.",
    },
    "simplifies.title": {"en": "What the picture simplifies", "fr": "Ce que l'image simplifie"},
    "simplifies.body": {
        "en": "<ul><li>Durations are orders of magnitude chosen for legibility, not a measurement of any model.</li>"
        "<li>Phases run strictly one after another here. PyTorch DDP overlaps the AllReduce with the backward pass "
        "through gradient buckets, which hides much of the communication, but not the wait for the slowest GPU.</li>"
        "<li>NCCL cuts each send into many smaller pieces and pipelines them over several channels; one box per "
        "chunk is a drawing device.</li>"
        "<li>What holds regardless: the AllReduce is a barrier, so the step runs at the pace of the slowest GPU, "
        "and a ring makes every GPU send 2(N−1)/N times the gradient size.</li></ul>",
        "fr": "<ul><li>Les durées sont des ordres de grandeur choisis pour la lisibilité, pas la mesure d'un modèle "
        "réel.</li><li>Ici les phases s'enchaînent strictement. PyTorch DDP recouvre l'AllReduce avec la "
        "rétropropagation grâce aux buckets de gradients, ce qui cache une grande partie des communications, mais "
        "pas l'attente du GPU le plus lent.</li><li>NCCL découpe chaque envoi en nombreux petits morceaux répartis "
        "sur plusieurs canaux ; une case par morceau est une convention de dessin.</li><li>Ce qui reste vrai : "
        "l'AllReduce est une barrière, le pas avance donc au rythme du GPU le plus lent, et l'anneau fait envoyer à "
        "chaque GPU 2(N−1)/N fois la taille des gradients.</li></ul>",
    },
    "measure.title": {"en": "Measure it on your cluster", "fr": "Le mesurer sur votre cluster"},
    "measure.body": {
        "en": "<table><thead><tr><th>Question</th><th>What to measure</th><th>How</th></tr></thead><tbody>"
        "<tr><th scope='row'>Is the step slowing down?</th><td>Step time per rank and its median across ranks.</td>"
        "<td>Timestamps around each step in the training loop, exported as a per-rank gauge to Prometheus or "
        "VictoriaMetrics.</td></tr>"
        "<tr><th scope='row'>Is there a straggler?</th><td>Gap between the slowest rank and the median rank.</td>"
        "<td>Alert on the gap (max ÷ median − 1), not the mean: the mean of 1,000 ranks hides one slow one.</td></tr>"
        "<tr><th scope='row'>Is the GPU really computing?</th><td><code>DCGM_FI_PROF_SM_ACTIVE</code>, "
        "<code>DCGM_FI_PROF_SM_OCCUPANCY</code>, <code>DCGM_FI_PROF_PIPE_TENSOR_ACTIVE</code>.</td>"
        "<td>dcgm-exporter profiling fields. <code>DCGM_FI_DEV_GPU_UTIL</code> (what nvidia-smi shows) only says a "
        "kernel was resident, an NCCL kernel spinning at the barrier included, so it rises with a straggler (the "
        "One step view shows what it read on an H200).</td></tr>"
        "<tr><th scope='row'>Where does the step time go?</th><td>Per-phase durations: data loading, forward, "
        "backward, collectives, optimizer.</td><td>PyTorch Profiler or Nsight Systems on a few steps, not "
        "continuously: the overhead and the trace size are not for production.</td></tr>"
        "<tr><th scope='row'>Is the network at fault?</th><td>Collective bandwidth, link errors, retransmits.</td>"
        "<td><code>NCCL_DEBUG=INFO</code> for the topology and algorithms NCCL picked; InfiniBand port counters "
        "(<code>port_xmit_wait</code>, symbol errors) per link.</td></tr></tbody></table>",
        "fr": "<table><thead><tr><th>Question</th><th>Quoi mesurer</th><th>Comment</th></tr></thead><tbody>"
        "<tr><th scope='row'>Le pas ralentit-il ?</th><td>Durée du pas par rang et sa médiane sur les rangs.</td>"
        "<td>Horodatages autour de chaque pas dans la boucle d'entraînement, exportés en jauge par rang vers "
        "Prometheus ou VictoriaMetrics.</td></tr>"
        "<tr><th scope='row'>Y a-t-il un retardataire ?</th><td>Écart entre le rang le plus lent et le rang médian."
        "</td><td>Alerter sur l'écart (max ÷ médiane − 1), pas sur la moyenne : la moyenne de 1 000 rangs cache un "
        "rang lent.</td></tr>"
        "<tr><th scope='row'>Le GPU calcule-t-il vraiment ?</th><td><code>DCGM_FI_PROF_SM_ACTIVE</code>, "
        "<code>DCGM_FI_PROF_SM_OCCUPANCY</code>, <code>DCGM_FI_PROF_PIPE_TENSOR_ACTIVE</code>.</td>"
        "<td>Champs de profilage de dcgm-exporter. <code>DCGM_FI_DEV_GPU_UTIL</code> (ce qu'affiche nvidia-smi) dit "
        "seulement qu'un noyau était résident, y compris un noyau NCCL qui tourne à vide à la barrière : il monte "
        "avec un retardataire (la vue Un pas montre ce qu'il a lu sur une H200).</td></tr>"
        "<tr><th scope='row'>Où passe le temps du pas ?</th><td>Durée par phase : chargement, forward, backward, "
        "collectives, optimiseur.</td><td>PyTorch Profiler ou Nsight Systems sur quelques pas, pas en continu : le "
        "surcoût et la taille des traces ne sont pas pour la production.</td></tr>"
        "<tr><th scope='row'>Le réseau est-il en cause ?</th><td>Bande passante des collectives, erreurs de lien, "
        "retransmissions.</td><td><code>NCCL_DEBUG=INFO</code> pour la topologie et les algorithmes choisis par "
        "NCCL ; compteurs des ports InfiniBand (<code>port_xmit_wait</code>, erreurs de symbole) par lien.</td></tr>"
        "</tbody></table>",
    },
    "footer": {
        "en": "Runs entirely in your browser: Python (Pyodide) computes the model, nothing is sent anywhere.",
        "fr": "Tout tourne dans votre navigateur : Python (Pyodide) calcule le modèle, rien n'est envoyé nulle part.",
    },
}


def _facts(lang: str) -> dict[str, str]:
    """The model's numbers the prose quotes, formatted from their one definition (ddpcore.base.params and formulas)."""
    from ddpcore.base.params import BUCKET_MB, FIRST_BUCKET_MB, GPUS, JITTER_CV, STRAGGLER_PROB
    from ddpcore.model import Link, ring_time_ms
    from ddpcore.model.cluster import any_straggles

    one_in = round(1 / STRAGGLER_PROB.default)
    return {
        "one_in": number(one_in, lang, 0),
        "p_any": percent(any_straggles(one_in, STRAGGLER_PROB.default), lang, 0),
        "jitter": percent(JITTER_CV.default, lang, 0),
        "ring_ms": number(ring_time_ms(GPUS.default, Link()), lang, 1),
        "gpus": number(GPUS.default, lang, 0),
        "bucket_mb": number(BUCKET_MB.default, lang, 1),
        "first_bucket_mb": number(FIRST_BUCKET_MB.default, lang, 1),
    }


FACTUAL = frozenset({"cluster.help", "cluster.notes", "overlap.body"})
"""Texts that quote the model's numbers; formatted when shown (the page's start does not need the cluster model)."""


def pick_lang(preferred: str) -> str:
    """'fr-CA' -> 'fr'; anything unknown -> 'en'."""
    code = (preferred or "").strip().lower()[:2]
    return code if code in LANGS else "en"


def t(key: str, lang: str, **values: object) -> str:
    """The text for `key`: the page's own (`TEXT`), else the core's words (`ddpcore.base.words`, the one table of its
    messages); values are formatted in but not escaped (callers escape what they insert)."""
    entry = TEXT.get(key)
    if entry is None:
        return say(key, lang, **values)
    template = entry.get(lang) or entry["en"]
    if key in FACTUAL:
        values = {**_facts(lang), **values}
    return template.format(**values) if values else template
