"""French and English text of the page; numbers formatted per language."""

from __future__ import annotations

import math

LANGS = ("en", "fr")
NBSP = "\u202f"

TEXT: dict[str, dict[str, str]] = {
    "title": {"en": "One step of data-parallel training", "fr": "Un pas d'entraînement data-parallèle"},
    "subtitle": {
        "en": "Ring AllReduce exchange by exchange, the barrier cost of a straggler, and why GPU utilization lies.",
        "fr": "Le ring AllReduce échange par échange, le coût d'un retardataire à la barrière, et pourquoi l'utilisation GPU ment.",
    },
    "loading": {"en": "Starting Python in your browser…", "fr": "Démarrage de Python dans le navigateur…"},
    "ready": {"en": "Live", "fr": "Prêt"},
    "python_error": {"en": "Python error", "fr": "Erreur Python"},
    "skip": {"en": "Skip to the diagram", "fr": "Aller au schéma"},
    "controls.title": {"en": "Controls", "fr": "Commandes"},
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
        "en": "<b>Try</b> “Next exchange” a few times. <b>Notice</b> that every GPU sends one chunk per exchange to its "
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
    "cost.step": {"en": "Step time", "fr": "Durée du pas"},
    "cost.ideal": {"en": "Ideal step (no straggler)", "fr": "Pas idéal (sans retardataire)"},
    "cost.efficiency": {"en": "Efficiency", "fr": "Efficacité"},
    "cost.straggler": {"en": "Straggler cost", "fr": "Coût du retardataire"},
    "cost.prefetch": {"en": "Prefetch gain", "fr": "Gain du préchargement"},
    "cost.wait": {"en": "GPU time burnt at the barrier", "fr": "Temps GPU brûlé à la barrière"},
    "cost.displayed": {"en": "Displayed GPU utilization", "fr": "Utilisation GPU affichée"},
    "cost.displayed_sub": {"en": "nvidia-smi, DCGM_FI_DEV_GPU_UTIL", "fr": "nvidia-smi, DCGM_FI_DEV_GPU_UTIL"},
    "cost.useful": {"en": "Useful compute", "fr": "Calcul utile"},
    "cost.useful_sub": {"en": "tensor pipes busy, DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "fr": "tensor cores actifs, DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"},
    "cost.lesson": {
        "en": "Prefetch saves {gain} ms; the straggler costs {cost} ms. An I/O fix does not cure a synchronisation problem.",
        "fr": "Le préchargement fait gagner {gain} ms ; le retardataire coûte {cost} ms. Une optimisation d'E/S ne guérit pas un problème de synchronisation.",
    },
    "cost.lesson_none": {
        "en": "Prefetch saves {gain} ms. Slow the straggler down to see what the barrier costs in comparison.",
        "fr": "Le préchargement fait gagner {gain} ms. Ralentissez le retardataire pour comparer avec le coût de la barrière.",
    },
    "notice.clamped": {
        "en": "Link value {name}={given} is not usable here; using {used}.",
        "fr": "Valeur du lien {name}={given} inutilisable ici ; valeur retenue : {used}.",
    },
    "notice.dismiss": {"en": "Dismiss", "fr": "Fermer"},
    "motion.reduced": {
        "en": "Reduced motion is on: Play jumps to the end of the step; use “Next exchange” to go one exchange at a time.",
        "fr": "Animations réduites : Lecture saute à la fin du pas ; « Échange suivant » avance d'un échange à la fois.",
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
        "kernel was resident, an NCCL kernel spinning at the barrier included, so it rises with a straggler.</td></tr>"
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
        "avec un retardataire.</td></tr>"
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


def pick_lang(preferred: str) -> str:
    """'fr-CA' -> 'fr'; anything unknown -> 'en'."""
    code = (preferred or "").strip().lower()[:2]
    return code if code in LANGS else "en"


def t(key: str, lang: str, **values: object) -> str:
    """The text for `key`; values are formatted in but not escaped (callers escape what they insert)."""
    entry = TEXT[key]
    template = entry.get(lang) or entry["en"]
    return template.format(**values) if values else template


def number(value: float, lang: str, digits: int = 1) -> str:
    """Locale-formatted number: '57', '0,772', '1 000'. Non-finite values print as a dash, never 'nan'."""
    if not math.isfinite(value):
        return "–"
    text = f"{value:,.{digits}f}"
    if digits:
        text = text.rstrip("0").rstrip(".") if "." in text else text
    if lang == "fr":
        text = text.replace(",", NBSP).replace(".", ",")
    return text


def ms(value: float, lang: str) -> str:
    return f"{number(value, lang, 1)}{NBSP if lang == 'fr' else ' '}ms"


def percent(ratio: float, lang: str) -> str:
    if not math.isfinite(ratio):
        return "–"
    return f"{number(ratio * 100, lang, 1)}{NBSP if lang == 'fr' else ''}%"
