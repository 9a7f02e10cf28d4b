package io.github.dropwizardhikari.holders;

import org.glassfish.jersey.server.ExtendedUriInfo;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.glassfish.jersey.server.monitoring.ApplicationEvent;
import org.glassfish.jersey.server.monitoring.ApplicationEventListener;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;
import org.glassfish.jersey.uri.UriTemplate;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * Names the request's resource method ({@code GET /people/{id}}, from its templates, never the raw path) as the
 * holder of what the request thread borrows, from the moment Jersey has matched it (so request filters and a
 * {@code @UnitOfWork} transaction begun at the method's start count for it too) until the request has finished.
 */
final class RequestLabelListener implements ApplicationEventListener {
    private final Labels labels;

    RequestLabelListener(Labels labels) {
        this.labels = labels;
    }

    @Override
    public void onEvent(ApplicationEvent event) {
        // nothing to do for the application's own events
    }

    @Override
    public RequestEventListener onRequest(RequestEvent start) {
        // on the request thread: what an earlier request left on it (finished on another thread) is cleared
        labels.clear();
        return this::onRequestEvent;
    }

    private void onRequestEvent(RequestEvent event) {
        switch (event.getType()) {
            case REQUEST_MATCHED, RESOURCE_METHOD_START -> {
                // named once a request: the method start only names what matching did not
                Holder holder = labels.isSet() ? null : holder(event.getUriInfo());
                if (holder != null) {
                    labels.set(holder);
                }
            }
            case FINISHED -> labels.clear();
            default -> {
                // the other events change nothing
            }
        }
    }

    @Nullable
    static Holder holder(@Nullable ExtendedUriInfo uriInfo) {
        ResourceMethod method = uriInfo == null ? null : uriInfo.getMatchedResourceMethod();
        if (method == null || method.getHttpMethod() == null) {
            return null;
        }
        return Holder.request(method.getHttpMethod(), template(uriInfo.getMatchedTemplates()));
    }

    /** @param matched the templates matched, the method's first, as Jersey lists them */
    static String template(List<UriTemplate> matched) {
        StringBuilder path = new StringBuilder();
        for (int i = matched.size() - 1; i >= 0; i--) {
            String part = matched.get(i).getTemplate();
            int start = 0;
            int end = part.length();
            while (start < end && part.charAt(start) == '/') {
                start++;
            }
            while (end > start && part.charAt(end - 1) == '/') {
                end--;
            }
            if (start < end) {
                path.append('/').append(part, start, end);
            }
        }
        return path.isEmpty() ? "/" : path.toString();
    }
}
